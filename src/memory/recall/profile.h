// The owner's profile documents (L2: persona, user, relationship, rules and
// any others), as the REST routes read and write them; each write keeps the
// content it replaced as a version (store/profile_version_repo.h).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "core/status.h"
#include "memory/namespace.h"
#include "store/profile_repo.h"
#include "store/profile_version_repo.h"

namespace cilia::memory {

Result<std::vector<store::ProfileDocument>> ListProfile(Namespace& ns);
Result<std::optional<store::ProfileDocument>> FindProfileDocument(Namespace& ns, const std::string& name);
// Creates or replaces the document, stamped with the namespace clock's now.
Result<store::ProfileDocument> PutProfileDocument(Namespace& ns, const std::string& name, std::string content);
// False when there was no such document.
Result<bool> DeleteProfileDocument(Namespace& ns, const std::string& name);
// The document's earlier contents, as ProfileVersionRepo::Of lists them.
Result<std::vector<store::ProfileVersion>> ProfileVersions(Namespace& ns, const std::string& name);

}  // namespace cilia::memory
