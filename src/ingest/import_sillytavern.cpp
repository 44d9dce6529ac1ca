// A SillyTavern chat file: JSON Lines whose first line is a header
// ({user_name, character_name, create_date, chat_metadata}) and every further
// line one message ({name, is_user, is_system, send_date, mes, extra, ...}).

#include <array>
#include <cctype>
#include <regex>

#include "core/time.h"
#include "ingest/import_util.h"
#include "ingest/importers.h"
#include "core/json_read.h"

namespace cilia::ingest {
namespace {

// SillyTavern marks a narrator's line (the /sys command) with this extra.type.
constexpr std::string_view kNarratorType = "narrator";

std::optional<int64_t> CivilToUnixMs(int year, int month, int day, int hour, int minute, int second, int millisecond) {
  if (month < 1 || month > 12 || day < 1 || day > DaysInMonth(year, month) || hour > 23 || minute > 59 || second > 59) {
    return std::nullopt;
  }
  int64_t days = DaysSinceEpoch(CivilDate{year, month, day});
  return days * kMsPerDay + ((hour * 60LL + minute) * 60 + second) * 1000 + millisecond;
}

// 1..12 for an English month name or its three-letter abbreviation.
int MonthNumber(std::string name) {
  static constexpr std::array<std::string_view, 12> kMonths = {"january",   "february", "march",    "april",
                                                               "may",       "june",     "july",     "august",
                                                               "september", "october",  "november", "december"};
  for (char& c : name) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  for (size_t i = 0; i < kMonths.size(); ++i) {
    if (name == kMonths[i] || (name.size() == 3 && kMonths[i].starts_with(name))) {
      return static_cast<int>(i) + 1;
    }
  }
  return 0;
}

// The send_date and create_date forms SillyTavern has written over the years:
// Unix milliseconds (a number or digits), ISO 8601, "June 19, 2023 4:20pm",
// and its "humanized" "2024-07-12@01h31m37s123ms" / "2024-6-5 @14h 56m 50s
// 682ms". The last two carry no zone and are read as UTC. Anything else is
// unknown: nullopt.
std::optional<int64_t> ParseSillyTavernTime(const nlohmann::json& value) {
  if (value.is_number()) return PlausibleUnixMs(value.get<double>());
  if (!value.is_string()) return std::nullopt;
  const std::string& text = value.get_ref<const std::string&>();
  if (!text.empty() && text.size() <= 15 && text.find_first_not_of("0123456789") == std::string::npos) {
    return PlausibleUnixMs(static_cast<double>(std::stoll(text)));
  }
  if (Result<UnixMs> rfc3339 = ParseRfc3339(text); rfc3339.ok()) return *rfc3339;
  if (Result<UnixMs> zoneless = ParseRfc3339(text + "Z"); zoneless.ok()) return *zoneless;

  static const std::regex kMeridiem(R"(([A-Za-z]+)\s+(\d{1,2}),\s*(\d{4})\s+(\d{1,2}):(\d{2})\s*([AaPp])[Mm])");
  static const std::regex kHumanized(
      R"((\d{4})-(\d{1,2})-(\d{1,2})\s*@(\d{1,2})h\s*(\d{1,2})m\s*(\d{1,2})s(?:\s*(\d{1,3})ms)?)");
  std::smatch match;
  auto number = [&match](size_t group) { return match[group].matched ? std::stoi(match[group].str()) : 0; };
  if (std::regex_search(text, match, kMeridiem)) {
    int month = MonthNumber(match[1].str());
    int hour = number(4);
    if (month == 0 || hour < 1 || hour > 12) return std::nullopt;
    bool pm = match[6].str() == "p" || match[6].str() == "P";
    return CivilToUnixMs(number(3), month, number(2), hour % 12 + (pm ? 12 : 0), number(5), 0, 0);
  }
  if (std::regex_search(text, match, kHumanized)) {
    return CivilToUnixMs(number(1), number(2), number(3), number(4), number(5), number(6), number(7));
  }
  return std::nullopt;
}

const nlohmann::json& MemberOrNull(const nlohmann::json& object, std::string_view key) {
  static const nlohmann::json kNull;
  auto it = object.find(key);
  return it == object.end() ? kNull : *it;
}

// One message line, or nullopt for SillyTavern's own notes (comments, help
// and other system messages that are not a narrator's line).
Result<std::optional<IngestMessage>> ConvertMessage(const nlohmann::json& line, size_t line_number) {
  if (!line.is_object()) return json::FieldError("", "a message line must be a JSON object");
  auto mes = line.find("mes");
  if (mes == line.end() || !mes->is_string()) return json::FieldError("mes", "must be a string");
  CILIA_ASSIGN_OR_RETURN(bool is_user, json::OptionalBool(line, "is_user", "", false));
  CILIA_ASSIGN_OR_RETURN(bool is_system, json::OptionalBool(line, "is_system", "", false));
  CILIA_ASSIGN_OR_RETURN(const nlohmann::json* extra, json::OptionalObject(line, "extra", ""));
  std::string type;
  if (extra != nullptr) {
    CILIA_ASSIGN_OR_RETURN(type, json::OptionalString(*extra, "type", "extra"));
  }

  IngestMessage message;
  if (type == kNarratorType) {
    message.role = "system";
  } else if (is_system && !type.empty()) {
    return std::optional<IngestMessage>();
  } else {
    // A message hidden from the prompt (is_system without a type) is still
    // something that was said.
    message.role = is_user ? "user" : "assistant";
  }
  message.id = "m" + std::to_string(line_number);
  CILIA_ASSIGN_OR_RETURN(message.name, json::OptionalString(line, "name", ""));
  message.content = mes->get<std::string>();
  message.created_at_ms = ParseSillyTavernTime(MemberOrNull(line, "send_date"));
  return std::optional<IngestMessage>(std::move(message));
}

}  // namespace

Result<std::vector<IngestConversation>> ImportSillyTavern(std::string_view text, std::string_view file_stem) {
  std::vector<TextLine> lines = NonBlankLines(text);
  std::vector<IngestConversation> conversations;
  if (lines.empty()) return conversations;

  CILIA_ASSIGN_OR_RETURN(nlohmann::json header, json::ParseJsonText(lines[0].text, lines[0].number));
  if (!header.is_object() || header.contains("mes")) {
    return AtLine(lines[0].number, Status::InvalidArgument("must be the chat header (user_name, character_name, "
                                                           "create_date), not a message"));
  }
  const nlohmann::json& create_date = MemberOrNull(header, "create_date");
  std::string create_date_text;
  if (create_date.is_string()) {
    create_date_text = create_date.get<std::string>();
  } else if (create_date.is_number()) {
    create_date_text = create_date.dump();
  }

  IngestConversation conversation;
  conversation.conversation_id = std::string(file_stem);
  if (!create_date_text.empty()) conversation.conversation_id += ":" + create_date_text;
  conversation.title = std::string(file_stem);
  for (size_t i = 1; i < lines.size(); ++i) {
    CILIA_ASSIGN_OR_RETURN(nlohmann::json line, json::ParseJsonText(lines[i].text, lines[i].number));
    Result<std::optional<IngestMessage>> message = ConvertMessage(line, lines[i].number);
    if (!message.ok()) return AtLine(lines[i].number, message.status());
    if (*message) conversation.messages.push_back(std::move(**message));
  }
  CILIA_RETURN_IF_ERROR(AppendImported(std::move(conversation), ParseSillyTavernTime(create_date), conversations));
  return conversations;
}

}  // namespace cilia::ingest
