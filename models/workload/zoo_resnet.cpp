// ResNet generator (torchvision's bottleneck ResNet, "v1.5": the stride sits on the 3x3 conv).
#include <string>
#include <vector>

#include "models/workload/zoo_ops.hpp"

namespace trainvp::zoo {
namespace {

// A feature map of one sample, channels x h x w.
struct FeatureMap {
  int c;
  int h;
  int w;
};

double elems(const FeatureMap& f, double batch) { return batch * f.c * f.h * f.w; }

// conv (no bias: BatchNorm follows) -> BatchNorm -> [in-place ReLU]; returns the output map.
FeatureMap conv_bn(std::vector<Op>& ops, const FeatureMap& in, int c_out, int kernel, int stride, double batch,
                   bool relu, bool shares_input = false) {
  const int pad = kernel / 2;
  ops.push_back(conv(in.c, c_out, kernel, stride, pad, in.h, in.w, batch, /*bias=*/false, shares_input));
  const ConvShape s = conv_out(in.h, in.w, kernel, stride, pad);
  const FeatureMap out{c_out, s.h, s.w};
  ops.push_back(norm(elems(out, batch), 2 * static_cast<std::uint64_t>(c_out)));
  if (relu) ops.push_back(relu_inplace(elems(out, batch)));
  return out;
}

// conv1 7x7/2 -> bn1 -> relu -> maxpool 3x3/2.
std::vector<Op> stem_ops(const ResNetConfig& c, int image_size, double batch, FeatureMap& out) {
  std::vector<Op> ops;
  const FeatureMap image{c.channels, image_size, image_size};
  const FeatureMap conv1 = conv_bn(ops, image, c.base_width, 7, 2, batch, /*relu=*/true);
  ops.front().input_grad = false;  // the image needs no gradient
  const ConvShape pooled = conv_out(conv1.h, conv1.w, 3, 2, 1);
  out = {conv1.c, pooled.h, pooled.w};
  ops.push_back(pointwise(elems(conv1, batch), elems(out, batch), elems(conv1, batch)));
  return ops;
}

// 1x1 reduce -> 3x3 (stride) -> 1x1 expand, plus a 1x1 downsample of the identity when the
// shape changes (torchvision's rule), then residual add and ReLU. Updates `map`.
std::vector<Op> bottleneck_ops(FeatureMap& map, int width, int expansion, int stride, double batch) {
  const FeatureMap in = map;
  const int c_out = width * expansion;
  std::vector<Op> ops;
  FeatureMap x = conv_bn(ops, in, width, 1, 1, batch, /*relu=*/true);
  x = conv_bn(ops, x, width, 3, stride, batch, /*relu=*/true);
  x = conv_bn(ops, x, c_out, 1, 1, batch, /*relu=*/false);
  if (stride != 1 || in.c != c_out) {
    conv_bn(ops, in, c_out, 1, stride, batch, /*relu=*/false, /*shares_input=*/true);
  }
  ops.push_back(add(2 * elems(x, batch), elems(x, batch)));
  ops.push_back(relu_inplace(elems(x, batch)));
  map = x;
  return ops;
}

// Global average pool (its backward needs only the shape), then the classifier.
std::vector<Op> fc_ops(const ResNetConfig& c, const FeatureMap& map, double batch) {
  std::vector<Op> ops{pointwise(elems(map, batch), map.c * batch, 0)};
  for (const Op& op : classifier(map.c, c.classes, batch)) ops.push_back(op);
  return ops;
}

}  // namespace

std::vector<Layer> build_resnet(const std::string& model, const ResNetConfig& c, const WorkloadShape& shape) {
  require(shape.batch >= 1, model, "batch must be >= 1, got " + std::to_string(shape.batch));
  // Below 32 px the five stride-2 stages would shrink the map to nothing.
  require(shape.image_size >= 32, model, "image_size must be >= 32, got " + std::to_string(shape.image_size));
  const double batch = shape.batch;

  std::vector<Layer> layers;
  FeatureMap map{};
  layers.push_back(make_layer("stem", stem_ops(c, shape.image_size, batch, map), shape));
  int width = c.base_width;
  for (std::size_t stage = 0; stage < c.blocks.size(); ++stage, width *= 2) {
    for (int block = 0; block < c.blocks[stage]; ++block) {
      const int stride = (stage > 0 && block == 0) ? 2 : 1;
      const std::string name = "layer" + std::to_string(stage + 1) + "." + std::to_string(block);
      layers.push_back(make_layer(name, bottleneck_ops(map, width, c.expansion, stride, batch), shape));
    }
  }
  layers.push_back(make_layer("fc", fc_ops(c, map, batch), shape));
  return layers;
}

}  // namespace trainvp::zoo
