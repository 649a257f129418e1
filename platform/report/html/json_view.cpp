#include "platform/report/html/json_view.hpp"

#include "platform/config/document.hpp"
#include "platform/core/errors.hpp"

namespace trainvp::html {

JsonView::JsonView(const nlohmann::json& value, std::string file, std::string pointer)
    : v_(&value), file_(std::move(file)), ptr_(std::move(pointer)) {}

bool JsonView::has(const std::string& key) const {
  if (!v_->is_object()) return false;
  auto it = v_->find(key);
  return it != v_->end() && !it->is_null();
}

JsonView JsonView::operator[](const std::string& key) const {
  if (!v_->is_object()) fail("an object");
  auto it = v_->find(key);
  if (it == v_->end()) throw ScenarioError(ptr_join(ptr_, key), "missing in " + file_);
  return JsonView(*it, file_, ptr_join(ptr_, key));
}

JsonView JsonView::operator[](std::size_t i) const {
  if (!v_->is_array()) fail("an array");
  if (i >= v_->size())
    throw ScenarioError(ptr_join(ptr_, i),
                        "missing in " + file_ + " (the array has " + std::to_string(v_->size()) + " elements)");
  return JsonView((*v_)[i], file_, ptr_join(ptr_, i));
}

std::vector<JsonView> JsonView::items() const {
  if (!v_->is_array()) fail("an array");
  std::vector<JsonView> out;
  out.reserve(v_->size());
  for (std::size_t i = 0; i < v_->size(); ++i) out.emplace_back((*v_)[i], file_, ptr_join(ptr_, i));
  return out;
}

double JsonView::number() const {
  if (!v_->is_number()) fail("a number");
  return v_->get<double>();
}

std::string JsonView::text() const {
  if (!v_->is_string()) fail("a string");
  return v_->get<std::string>();
}

bool JsonView::boolean() const {
  if (!v_->is_boolean()) fail("true or false");
  return v_->get<bool>();
}

double JsonView::number_or(const std::string& key, double fallback) const {
  return has(key) ? (*this)[key].number() : fallback;
}

std::string JsonView::text_or(const std::string& key, const std::string& fallback) const {
  return has(key) ? (*this)[key].text() : fallback;
}

void JsonView::fail(const std::string& expected) const {
  throw ScenarioError(ptr_, "expected " + expected + " in " + file_ + ", found " + describe_found(*v_));
}

nlohmann::json read_input_json(const std::string& path, const std::string& role) {
  // The scenario reader's: depth-limited and strict, so a hostile file is refused, not recursed into.
  return trainvp::read_json_file(path, role);
}

}  // namespace trainvp::html
