// Documentation cannot silently fall behind the code: every GPU preset and zoo model is documented.
// (Every scenario key is, in the generated key table that config_tests compares with the schema
// registry: platform/config/test/test_schema_registry.cpp.)
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include "models/gpu/gpu_params.hpp"
#include "models/workload/layer.hpp"

namespace trainvp {
namespace test_docs {  // named for the file: unity builds join test files (cmake/unit_tests.cmake)

std::string read_doc(const char* rel) {
  std::ifstream in(std::string(TRAINVP_SOURCE_DIR) + "/" + rel);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

TEST(Docs, ScenarioFormatNamesEveryGpuPresetAndModelsDocEveryZooModel) {
  std::string fmt = read_doc("docs/scenario-format.md"), models = read_doc("docs/models.md");
  for (auto& p : gpu_presets()) EXPECT_NE(fmt.find(p.name), std::string::npos) << p.name;
  for (auto& m : zoo_models()) EXPECT_NE(models.find(m.name), std::string::npos) << m.name;
}

// docs/cluster.md shows the cluster scripts as they are (tests/cluster/test-slurm.sh runs them).
TEST(Docs, ClusterDocShowsTheClusterScriptsVerbatim) {
  std::string doc = read_doc("docs/cluster.md");
  for (const char* script : {"scripts/cluster/sweep-slurm.sh", "scripts/cluster/sweep-shard.sbatch",
                             "scripts/cluster/sweep-merge.sbatch", "scripts/cluster/sweep-parallel.sh"}) {
    std::string text = read_doc(script);
    ASSERT_FALSE(text.empty()) << script;
    EXPECT_NE(doc.find("```sh\n" + text + "```"), std::string::npos) << script << " differs from docs/cluster.md";
  }
}

}  // namespace test_docs
}  // namespace trainvp
