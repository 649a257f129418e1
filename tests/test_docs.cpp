// Documentation cannot silently fall behind the code: every scenario key that `trainvp
// describe` lists must appear in docs/scenario-format.md, and every GPU preset and zoo model too.
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include "models/gpu/gpu_params.hpp"
#include "models/workload/layer.hpp"
#include "platform/config/scenario.hpp"

namespace trainvp {
namespace {

std::string read_doc(const char* rel) {
  std::ifstream in(std::string(TRAINVP_SOURCE_DIR) + "/" + rel);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

TEST(Docs, ScenarioFormatDocumentsEveryDeclaredKey) {
  std::string doc = read_doc("docs/scenario-format.md");
  ASSERT_FALSE(doc.empty());
  for (const SchemaInfo& s : all_schemas())
    for (const ParamInfo& p : s.params)
      EXPECT_NE(doc.find("`" + p.name + "`"), std::string::npos) << s.name << "." << p.name << " is undocumented";
}

TEST(Docs, ScenarioFormatNamesEveryGpuPresetAndModelsDocEveryZooModel) {
  std::string fmt = read_doc("docs/scenario-format.md"), models = read_doc("docs/models.md");
  for (auto& p : gpu_presets()) EXPECT_NE(fmt.find(p.name), std::string::npos) << p.name;
  for (auto& m : zoo_models()) EXPECT_NE(models.find(m.name), std::string::npos) << m.name;
}

}  // namespace
}  // namespace trainvp
