#pragma once
// One self-contained HTML page: inline CSS, inline SVG, a little plain script (sortable tables,
// and a record of script errors in #js-errors, which a headless browser's --dump-dom shows), no
// request to any other file or host.
#include <optional>
#include <string>
#include <vector>

namespace trainvp::html {

// A table cell: its text, and for a number the exact value (data-value, which sorting uses and
// the browser test compares with results.json) and where it came from (data-key: a JSON pointer).
struct Cell {
  std::string text;
  std::optional<double> value;
  std::string key;
};
Cell text_cell(std::string text);
Cell number_cell(double value, std::string text, std::string key = "");

struct Table {
  std::string id;  // data-table, for tests
  std::vector<std::string> head;
  std::vector<std::vector<Cell>> rows;
  bool sortable = false;  // click a heading to sort by its column
  bool scroll = true;     // a long table scrolls in a box of its own
};
std::string render(const Table& t);

// A two-column table of name and value: the summary's shape.
Table key_values(std::string id, std::vector<std::pair<std::string, Cell>> rows);

class Page {
 public:
  Page(std::string title, std::string subtitle);
  // A section with a heading; `body` is HTML (charts, tables, paragraphs).
  void section(const std::string& id, const std::string& heading, const std::string& body);
  // A section the input has no data for: one line saying so, in its place, never a made-up chart.
  void omitted(const std::string& id, const std::string& heading, const std::string& why);
  std::string render() const;

 private:
  std::string title_, subtitle_, body_, toc_;
};

// A paragraph of plain text.
std::string paragraph(const std::string& text);

}  // namespace trainvp::html
