#include "platform/report/html/page.hpp"

#include "platform/report/html/svg.hpp"

namespace trainvp::html {

namespace {

const char* kStyle = R"(
:root{--fg:#1d2430;--muted:#5b6577;--line:#d8dde6;--bg:#ffffff;--panel:#f6f8fb}
*{box-sizing:border-box}
body{font:14px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,"DejaVu Sans",sans-serif;color:var(--fg);background:var(--bg);margin:0}
header{padding:18px 28px 10px;border-bottom:1px solid var(--line);background:var(--panel)}
header h1{margin:0 0 4px;font-size:22px}
header p{margin:0;color:var(--muted)}
nav{padding:6px 28px;border-bottom:1px solid var(--line);font-size:13px}
nav a{margin-right:14px;color:#0b5cad;text-decoration:none}
main{padding:8px 28px 40px;max-width:1040px}
section{margin:22px 0 10px}
h2{font-size:18px;margin:0 0 8px;border-bottom:1px solid var(--line);padding-bottom:4px}
h3{font-size:15px;margin:14px 0 6px}
p.omitted{color:var(--muted);font-style:italic;margin:4px 0}
table{border-collapse:collapse;margin:6px 0 12px;font-size:13px}
th,td{border-bottom:1px solid var(--line);padding:3px 10px;text-align:left;vertical-align:top}
td:first-child{white-space:nowrap}
td.num{text-align:right;font-variant-numeric:tabular-nums}
table.sortable th{cursor:pointer;user-select:none}
table.sortable th:after{content:" \2195";color:var(--muted)}
.tablebox{overflow-x:auto}
.scroll{max-height:520px;overflow:auto;border:1px solid var(--line)}
td{max-width:520px}
figure.chart-box{margin:10px 0 16px}
figcaption{font-weight:600;margin-bottom:4px}
svg.chart{display:block;max-width:100%;height:auto;font:11px system-ui,"DejaVu Sans",sans-serif}
svg .grid{stroke:#e6e9ef}
svg .axis{stroke:#7a8394}
svg .tick{fill:#4a5364}
svg .axis-label{fill:#1d2430;font-size:12px}
svg .row-label{fill:#1d2430}
svg .bar-text{fill:#fff;font-size:10px}
svg .line{fill:none;stroke-width:1.6}
svg .band{opacity:.18}
svg .span{opacity:.16}
svg .marker line{stroke-width:1.4;stroke-dasharray:3,2}
svg .marker-label{font-size:10px;fill:#1d2430}
svg .stripe{fill:#f3f5f8}
svg rect:hover,svg circle:hover{opacity:.75}
.legend{font-size:12px;color:var(--muted)}
.legend span{margin-right:14px;white-space:nowrap}
.legend i{display:inline-block;width:10px;height:10px;margin-right:4px;vertical-align:-1px}
details pre{background:var(--panel);padding:8px;overflow:auto;max-height:420px;font-size:12px}
#js-errors:empty{display:none}
#js-errors{color:#b00020;border:1px solid #b00020;padding:6px;margin:8px 28px}
)";

// First in <head>: every script error and console.error from here on is written into #js-errors.
const char* kErrorScript = R"(
(function(){var list=[];function add(m){list.push(String(m));var e=document.getElementById('js-errors');if(e)e.textContent=list.join('\n');}
window.addEventListener('error',function(ev){add('error: '+ev.message);});
var ce=console.error;console.error=function(){add('console.error: '+Array.prototype.join.call(arguments,' '));return ce.apply(console,arguments);};
window.__reportErrors=add;})();
)";

// Last in <body>: sortable tables (numbers by value, then text and blank cells, in either
// direction: a metric column of infeasible points keeps its numbers together); then the page
// marks itself ready.
const char* kScript = R"(
(function(){
function key(td){var v=td.getAttribute('data-value');return v===null?td.textContent:parseFloat(v);}
document.querySelectorAll('table.sortable').forEach(function(t){
  t.querySelectorAll('th').forEach(function(th,i){th.addEventListener('click',function(){
    var body=t.tBodies[0],rows=Array.prototype.slice.call(body.rows),asc=th.getAttribute('data-sort')!=='asc';
    t.querySelectorAll('th').forEach(function(h){h.removeAttribute('data-sort');});
    th.setAttribute('data-sort',asc?'asc':'desc');
    rows.sort(function(a,b){var x=key(a.cells[i]),y=key(b.cells[i]),
        nx=typeof x==='number'&&!isNaN(x),ny=typeof y==='number'&&!isNaN(y);
      if(nx&&ny)return asc?x-y:y-x;
      if(nx!==ny)return nx?-1:1;
      return asc?String(x).localeCompare(String(y)):String(y).localeCompare(String(x));});
    rows.forEach(function(r){body.appendChild(r);});});});});
document.documentElement.setAttribute('data-report-ready','1');
})();
)";

}  // namespace

Cell text_cell(std::string text) { return Cell{std::move(text), std::nullopt, ""}; }

Cell number_cell(double value, std::string text, std::string key) {
  return Cell{std::move(text), value, std::move(key)};
}

std::string render(const Table& t) {
  std::string out = std::string("<div class=\"tablebox") + (t.scroll && t.rows.size() > 25 ? " scroll" : "") +
                    "\"><table" + (t.sortable ? " class=\"sortable\"" : "") +
                    (t.id.empty() ? "" : " data-table=\"" + escape(t.id) + "\"") + ">\n";
  if (!t.head.empty()) {
    out += "<thead><tr>";
    for (auto& h : t.head) out += "<th>" + escape(h) + "</th>";
    out += "</tr></thead>\n";
  }
  out += "<tbody>\n";
  for (auto& r : t.rows) {
    out += "<tr>";
    for (auto& c : r) {
      if (c.value) {
        out += "<td class=\"num\" data-value=\"" + exact(*c.value) + "\"";
        if (!c.key.empty()) out += " data-key=\"" + escape(c.key) + "\"";
        out += ">" + escape(c.text) + "</td>";
      } else {
        out += "<td>" + escape(c.text) + "</td>";
      }
    }
    out += "</tr>\n";
  }
  return out + "</tbody></table></div>\n";
}

Table key_values(std::string id, std::vector<std::pair<std::string, Cell>> rows) {
  Table t;
  t.id = std::move(id);
  t.scroll = false;
  for (auto& [name, cell] : rows) t.rows.push_back({text_cell(name), std::move(cell)});
  return t;
}

Page::Page(std::string title, std::string subtitle) : title_(std::move(title)), subtitle_(std::move(subtitle)) {}

void Page::section(const std::string& id, const std::string& heading, const std::string& body) {
  body_ += "<section id=\"" + escape(id) + "\" data-section=\"" + escape(id) + "\">\n<h2>" + escape(heading) +
           "</h2>\n" + body + "</section>\n";
  toc_ += "<a href=\"#" + escape(id) + "\">" + escape(heading) + "</a>";
}

void Page::omitted(const std::string& id, const std::string& heading, const std::string& why) {
  body_ += "<p class=\"omitted\" data-omitted=\"" + escape(id) + "\">" + escape(heading) + ": not drawn, " +
           escape(why) + ".</p>\n";
}

std::string Page::render() const {
  return "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
         "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n<title>" +
         escape(title_) + "</title>\n<script>" + kErrorScript + "</script>\n<style>" + kStyle +
         "</style>\n</head>\n<body>\n<header><h1>" + escape(title_) + "</h1><p>" + escape(subtitle_) +
         "</p></header>\n<nav>" + toc_ + "</nav>\n<div id=\"js-errors\"></div>\n<main>\n" + body_ +
         "</main>\n<script>" + kScript + "</script>\n</body>\n</html>\n";
}

std::string paragraph(const std::string& text) { return "<p>" + escape(text) + "</p>\n"; }

}  // namespace trainvp::html
