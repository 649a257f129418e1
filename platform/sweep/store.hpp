#pragma once
// sweep.db, the SQLite summary of a sweep (docs/sweeps.md, "sweep.db"):
//
//   sweep   (key TEXT PRIMARY KEY, value TEXT)   spec, name, base, shard, points_total, ...
//   columns (position, name, kind, pointer, unit, scale)   what each parameter/metric column is
//   points  (id TEXT PRIMARY KEY, idx INTEGER, "<parameter pointer>"..., status TEXT,
//            exit_code INTEGER, wall_s REAL, "<metric>" REAL..., error TEXT)
//
// Parameter columns have no declared type, so values keep theirs (numbers stay numbers,
// "100Gbps" stays text); booleans are stored as 0/1, objects and arrays as JSON text. Every
// statement is prepared with bound parameters; only column names are spliced, double-quoted.
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

struct sqlite3;

namespace trainvp::sweep {

using json = nlohmann::json;

struct ColumnInfo {
  std::string name;     // column name: the parameter's pointer, or the metric's name
  std::string kind;     // "parameter" or "metric"
  std::string pointer;  // into the scenario (parameters) or results.json (metrics)
  std::string unit;     // metrics: for plot axes; parameters: ""
  std::string scale;    // parameters with a range: "linear" or "log"; else ""
  bool operator==(const ColumnInfo& o) const {
    return name == o.name && kind == o.kind && pointer == o.pointer && unit == o.unit && scale == o.scale;
  }
};

struct PointRow {
  std::string id;
  std::int64_t idx = 0;
  std::vector<json> params;        // one per parameter column
  std::string status = "pending";  // "ok", "failed", "pending", "infeasible"
  json exit_code;                  // integer or null
  json wall_s;                     // number or null
  std::vector<json> metrics;       // one per metric column; null when absent
  json error;                      // string or null
};

class Store {
 public:
  // Creates `path` (or opens it and drops its tables) with this schema; writable.
  static Store create(const std::string& path, const std::vector<ColumnInfo>& columns,
                      const std::map<std::string, std::string>& meta);
  // Opens an existing sweep.db; throws std::runtime_error when it is missing or not a sweep.db.
  static Store open(const std::string& path, bool writable = false);

  Store(Store&& o) noexcept;
  Store& operator=(Store&&) = delete;
  ~Store();

  const std::string& path() const { return path_; }
  const std::vector<ColumnInfo>& columns() const { return columns_; }  // parameters, then metrics
  std::vector<ColumnInfo> parameters() const;
  std::vector<ColumnInfo> metrics() const;
  std::map<std::string, std::string> meta() const;
  void set_meta(const std::string& key, const std::string& value);

  void begin();
  void commit();
  void put(const PointRow& row);       // insert or replace by id
  std::vector<PointRow> rows() const;  // ordered by idx

  // Every column name of `points` in table order, and its rows as JSON values (for CSV).
  std::vector<std::string> point_columns() const;
  std::vector<std::vector<json>> point_table() const;

 private:
  Store(sqlite3* db, std::string path);
  void exec(const std::string& sql);
  void load_columns();
  sqlite3* db_ = nullptr;
  std::string path_;
  std::vector<ColumnInfo> columns_;
};

// "name" -> "\"name\"" with embedded quotes doubled.
std::string quote_identifier(const std::string& name);

}  // namespace trainvp::sweep
