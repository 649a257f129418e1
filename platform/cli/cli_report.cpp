#include "platform/cli/cli_report.hpp"
#include "platform/cli/exit_codes.hpp"
#include "platform/cli/help_text.hpp"
#include "platform/cli/sweep_report.hpp"

#include <filesystem>
#include <iostream>
#include <stdexcept>

#include "platform/core/errors.hpp"
#include "platform/report/html/run_report.hpp"

namespace trainvp {

namespace fs = std::filesystem;

std::string write_run_report(const std::string& dir) {
  const std::string out = (fs::path(dir) / "report.html").string();
  html::write_file_atomically(out, html::run_report_html(dir));
  return out;
}

int cli_report(const std::vector<std::string>& args) {
  if (wants_help(args)) return std::cout << help_of("report"), kOk;
  std::string dir, out;
  try {
    for (std::size_t i = 0; i < args.size(); ++i) {
      const std::string& s = args[i];
      if (s == "-o" || s == "--output") {
        if (i + 1 >= args.size()) throw std::invalid_argument("-o needs a value");
        out = args[++i];
      } else if (!s.empty() && s[0] == '-') {
        throw std::invalid_argument("unknown option " + s);
      } else if (dir.empty()) {
        dir = s;
      } else {
        throw std::invalid_argument("unexpected argument " + s);
      }
    }
    if (dir.empty()) throw std::invalid_argument("report: missing DIR");
  } catch (const std::invalid_argument& e) {
    std::cerr << "trainvp: " << e.what() << "\n(trainvp report --help for usage)\n";
    return kBadInput;
  }
  // Errors reach cli_main's handlers: a ScenarioError exits 2 naming its file and pointer.
  const bool is_db = fs::is_regular_file(dir) && fs::path(dir).extension() == ".db";
  if (!is_db && !fs::is_directory(dir)) throw ScenarioError("", "\"" + dir + "\" is not a directory");
  const fs::path db = is_db ? fs::path(dir) : fs::path(dir) / "sweep.db";
  const bool sweep = fs::is_regular_file(db);
  const std::string page = sweep ? sweep_report_html(db.string()) : html::run_report_html(dir);
  if (out.empty()) out = ((is_db ? fs::path(dir).parent_path() : fs::path(dir)) / "report.html").string();
  html::write_file_atomically(out, page);
  std::cout << "report: " << out << "\n";
  return kOk;
}

}  // namespace trainvp
