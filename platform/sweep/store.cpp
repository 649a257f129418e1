#include "platform/sweep/store.hpp"

#include <sqlite3.h>

#include <filesystem>
#include <stdexcept>

namespace trainvp::sweep {

namespace {

[[noreturn]] void fail(sqlite3* db, const std::string& what) {
  throw std::runtime_error(what + ": " + (db ? sqlite3_errmsg(db) : "out of memory"));
}

// A prepared statement, finalized on scope exit.
class Stmt {
 public:
  Stmt(sqlite3* db, const std::string& sql) : db_(db) {
    if (sqlite3_prepare_v2(db, sql.c_str(), -1, &st_, nullptr) != SQLITE_OK)
      fail(db, "sqlite: cannot prepare \"" + sql + "\"");
  }
  ~Stmt() { sqlite3_finalize(st_); }
  Stmt(const Stmt&) = delete;
  Stmt& operator=(const Stmt&) = delete;

  void bind(int i, const json& v) {
    int rc;
    if (v.is_null()) rc = sqlite3_bind_null(st_, i);
    else if (v.is_boolean()) rc = sqlite3_bind_int64(st_, i, v.get<bool>() ? 1 : 0);
    else if (v.is_number_unsigned())
      rc = sqlite3_bind_int64(st_, i, static_cast<sqlite3_int64>(v.get<std::uint64_t>()));
    else if (v.is_number_integer()) rc = sqlite3_bind_int64(st_, i, v.get<std::int64_t>());
    else if (v.is_number_float()) rc = sqlite3_bind_double(st_, i, v.get<double>());
    else {
      std::string text = v.is_string() ? v.get<std::string>() : v.dump();
      rc = sqlite3_bind_text(st_, i, text.c_str(), static_cast<int>(text.size()), SQLITE_TRANSIENT);
    }
    if (rc != SQLITE_OK) fail(db_, "sqlite: bind");
  }
  bool step() {
    int rc = sqlite3_step(st_);
    if (rc == SQLITE_ROW) return true;
    if (rc == SQLITE_DONE) return false;
    fail(db_, "sqlite");
  }
  int columns() const { return sqlite3_column_count(st_); }
  std::string name(int i) const { return sqlite3_column_name(st_, i); }
  json column(int i) const {
    switch (sqlite3_column_type(st_, i)) {
      case SQLITE_NULL: return nullptr;
      case SQLITE_INTEGER: return static_cast<std::int64_t>(sqlite3_column_int64(st_, i));
      case SQLITE_FLOAT: return sqlite3_column_double(st_, i);
      default: {
        const unsigned char* t = sqlite3_column_text(st_, i);
        return std::string(t ? reinterpret_cast<const char*>(t) : "",
                           static_cast<std::size_t>(sqlite3_column_bytes(st_, i)));
      }
    }
  }
  std::string text(int i) const {
    json v = column(i);
    return v.is_string() ? v.get<std::string>() : (v.is_null() ? "" : v.dump());
  }

 private:
  sqlite3* db_;
  sqlite3_stmt* st_ = nullptr;
};

sqlite3* open_db(const std::string& path, int flags) {
  sqlite3* db = nullptr;
  if (sqlite3_open_v2(path.c_str(), &db, flags, nullptr) != SQLITE_OK) {
    std::string msg = db ? sqlite3_errmsg(db) : "out of memory";
    sqlite3_close(db);
    throw std::runtime_error("cannot open \"" + path + "\": " + msg);
  }
  sqlite3_busy_timeout(db, 10000);
  return db;
}

}  // namespace

std::string quote_identifier(const std::string& name) {
  std::string q = "\"";
  for (char c : name) q += c == '"' ? std::string("\"\"") : std::string(1, c);
  return q + "\"";
}

Store::Store(sqlite3* db, std::string path) : db_(db), path_(std::move(path)) {}

Store::Store(Store&& o) noexcept : db_(o.db_), path_(std::move(o.path_)), columns_(std::move(o.columns_)) {
  o.db_ = nullptr;
}

Store::~Store() {
  if (db_) sqlite3_close(db_);
}

void Store::exec(const std::string& sql) {
  char* err = nullptr;
  if (sqlite3_exec(db_, sql.c_str(), nullptr, nullptr, &err) != SQLITE_OK) {
    std::string msg = err ? err : "unknown error";
    sqlite3_free(err);
    throw std::runtime_error("sqlite: " + msg + " (in " + path_ + ")");
  }
}

Store Store::create(const std::string& path, const std::vector<ColumnInfo>& columns,
                    const std::map<std::string, std::string>& meta) {
  Store s(open_db(path, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE), path);
  s.exec("PRAGMA synchronous=NORMAL");
  s.begin();
  s.exec("DROP TABLE IF EXISTS points; DROP TABLE IF EXISTS columns; DROP TABLE IF EXISTS sweep;");
  s.exec("CREATE TABLE sweep (key TEXT PRIMARY KEY, value TEXT NOT NULL)");
  s.exec(
      "CREATE TABLE columns (position INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE, kind TEXT NOT NULL "
      "CHECK (kind IN ('parameter','metric')), pointer TEXT NOT NULL, unit TEXT NOT NULL, scale TEXT NOT NULL)");
  std::string sql = "CREATE TABLE points (id TEXT PRIMARY KEY, idx INTEGER NOT NULL UNIQUE";
  for (auto& c : columns)
    if (c.kind == "parameter") sql += ", " + quote_identifier(c.name);
  sql +=
      ", status TEXT NOT NULL CHECK (status IN ('ok','failed','pending','infeasible')), exit_code INTEGER, wall_s REAL";
  for (auto& c : columns)
    if (c.kind == "metric") sql += ", " + quote_identifier(c.name) + " REAL";
  sql += ", error TEXT)";
  s.exec(sql);
  {
    int pos = 0;
    // Parameters first, then metrics: the order of the points table.
    for (const char* kind : {"parameter", "metric"})
      for (auto& c : columns) {
        if (c.kind != kind) continue;
        Stmt one(s.db_, "INSERT INTO columns (position, name, kind, pointer, unit, scale) VALUES (?, ?, ?, ?, ?, ?)");
        one.bind(1, pos++);
        one.bind(2, c.name);
        one.bind(3, c.kind);
        one.bind(4, c.pointer);
        one.bind(5, c.unit);
        one.bind(6, c.scale);
        one.step();
      }
  }
  for (auto& [k, v] : meta) s.set_meta(k, v);
  s.commit();
  s.load_columns();
  return s;
}

Store Store::open(const std::string& path, bool writable) {
  if (!std::filesystem::is_regular_file(path)) throw std::runtime_error("no sweep database at \"" + path + "\"");
  Store s(open_db(path, writable ? SQLITE_OPEN_READWRITE : SQLITE_OPEN_READONLY), path);
  try {
    s.load_columns();
    Stmt check(s.db_, "SELECT count(*) FROM sweep");
    check.step();
  } catch (const std::runtime_error& e) {
    throw std::runtime_error("\"" + path + "\" is not a trainvp sweep.db (" + e.what() + ")");
  }
  return s;
}

void Store::load_columns() {
  columns_.clear();
  Stmt q(db_, "SELECT name, kind, pointer, unit, scale FROM columns ORDER BY position");
  while (q.step()) columns_.push_back({q.text(0), q.text(1), q.text(2), q.text(3), q.text(4)});
}

std::vector<ColumnInfo> Store::parameters() const {
  std::vector<ColumnInfo> out;
  for (auto& c : columns_)
    if (c.kind == "parameter") out.push_back(c);
  return out;
}

std::vector<ColumnInfo> Store::metrics() const {
  std::vector<ColumnInfo> out;
  for (auto& c : columns_)
    if (c.kind == "metric") out.push_back(c);
  return out;
}

std::map<std::string, std::string> Store::meta() const {
  std::map<std::string, std::string> m;
  Stmt q(db_, "SELECT key, value FROM sweep");
  while (q.step()) m[q.text(0)] = q.text(1);
  return m;
}

void Store::set_meta(const std::string& key, const std::string& value) {
  Stmt q(db_, "INSERT OR REPLACE INTO sweep (key, value) VALUES (?, ?)");
  q.bind(1, key);
  q.bind(2, value);
  q.step();
}

void Store::begin() { exec("BEGIN IMMEDIATE"); }
void Store::commit() { exec("COMMIT"); }

void Store::put(const PointRow& row) {
  auto params = parameters();
  auto mets = metrics();
  if (row.params.size() != params.size() || row.metrics.size() != mets.size())
    throw std::logic_error("sweep.db: a row does not match the columns");
  std::string cols = "id, idx", marks = "?, ?";
  for (auto& c : params) cols += ", " + quote_identifier(c.name), marks += ", ?";
  cols += ", status, exit_code, wall_s", marks += ", ?, ?, ?";
  for (auto& c : mets) cols += ", " + quote_identifier(c.name), marks += ", ?";
  cols += ", error", marks += ", ?";
  Stmt q(db_, "INSERT OR REPLACE INTO points (" + cols + ") VALUES (" + marks + ")");
  int i = 1;
  q.bind(i++, row.id);
  q.bind(i++, row.idx);
  for (auto& v : row.params) q.bind(i++, v);
  q.bind(i++, row.status);
  q.bind(i++, row.exit_code);
  q.bind(i++, row.wall_s);
  for (auto& v : row.metrics) q.bind(i++, v);
  q.bind(i++, row.error);
  q.step();
}

std::vector<PointRow> Store::rows() const {
  auto params = parameters();
  auto mets = metrics();
  std::string cols = "id, idx";
  for (auto& c : params) cols += ", " + quote_identifier(c.name);
  cols += ", status, exit_code, wall_s";
  for (auto& c : mets) cols += ", " + quote_identifier(c.name);
  cols += ", error";
  Stmt q(db_, "SELECT " + cols + " FROM points ORDER BY idx");
  std::vector<PointRow> out;
  while (q.step()) {
    PointRow r;
    int i = 0;
    r.id = q.text(i++);
    r.idx = q.column(i++).get<std::int64_t>();
    for (std::size_t k = 0; k < params.size(); ++k) r.params.push_back(q.column(i++));
    r.status = q.text(i++);
    r.exit_code = q.column(i++);
    r.wall_s = q.column(i++);
    for (std::size_t k = 0; k < mets.size(); ++k) r.metrics.push_back(q.column(i++));
    r.error = q.column(i++);
    out.push_back(std::move(r));
  }
  return out;
}

std::vector<std::string> Store::point_columns() const {
  Stmt q(db_, "SELECT * FROM points LIMIT 0");
  std::vector<std::string> names;
  for (int i = 0; i < q.columns(); ++i) names.push_back(q.name(i));
  return names;
}

std::vector<std::vector<json>> Store::point_table() const {
  Stmt q(db_, "SELECT * FROM points ORDER BY idx");
  std::vector<std::vector<json>> out;
  while (q.step()) {
    std::vector<json> row;
    for (int i = 0; i < q.columns(); ++i) row.push_back(q.column(i));
    out.push_back(std::move(row));
  }
  return out;
}

}  // namespace trainvp::sweep
