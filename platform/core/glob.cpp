#include "platform/core/glob.hpp"

namespace trainvp {

static bool match_class(const std::string& p, std::size_t& i, char c) {
  // p[i] == '['; on return i points past ']'.
  std::size_t j = i + 1;
  bool negate = j < p.size() && p[j] == '!';
  if (negate) ++j;
  bool hit = false;
  for (; j < p.size() && p[j] != ']'; ++j) {
    if (j + 2 < p.size() && p[j + 1] == '-' && p[j + 2] != ']') {
      if (c >= p[j] && c <= p[j + 2]) hit = true;
      j += 2;
    } else if (p[j] == c) {
      hit = true;
    }
  }
  i = j + 1;
  return hit != negate;
}

static bool match_at(const std::string& p, std::size_t pi, const std::string& s, std::size_t si) {
  while (pi < p.size()) {
    char c = p[pi];
    if (c == '*') {
      while (pi < p.size() && p[pi] == '*') ++pi;
      if (pi == p.size()) return true;
      for (std::size_t k = si; k <= s.size(); ++k)
        if (match_at(p, pi, s, k)) return true;
      return false;
    }
    if (si >= s.size()) return false;
    if (c == '?') {
      ++pi, ++si;
    } else if (c == '[' && p.find(']', pi + 1) != std::string::npos) {
      if (!match_class(p, pi, s[si])) return false;
      ++si;
    } else {
      if (c != s[si]) return false;
      ++pi, ++si;
    }
  }
  return si == s.size();
}

bool glob_match(const std::string& pattern, const std::string& name) { return match_at(pattern, 0, name, 0); }

}  // namespace trainvp
