// The chat-export importers: format detection, then the detected reader and
// each JSON reader on the same document. No input crashes any of them.
#include "core/json_read.h"
#include "fuzz_support.h"
#include "ingest/importers.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace cilia;
  const std::string_view text = fuzz::Input(data, size);
  (void)ingest::ImportJsonLines(text);
  (void)ingest::ImportSillyTavern(text, "fuzz");
  (void)ingest::DetectImportFormat(text);
  auto root = json::ParseJsonText(text);
  if (!root.ok()) return 0;
  for (auto* import : {&ingest::ImportChatGPT, &ingest::ImportClaude, &ingest::ImportChatbox}) {
    auto conversations = (*import)(*root);
    if (!conversations.ok()) continue;
    for (const auto& c : *conversations) {
      fuzz::Require(ingest::ValidateIngestConversation(c).ok(), "an imported conversation validates");
    }
  }
  return 0;
}
