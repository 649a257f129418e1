// Kernel-level ops of the model zoo and the rules that derive a layer's backward from them.
#include "models/workload/zoo_ops.hpp"

#include <cmath>
#include <stdexcept>
#include <utility>

namespace trainvp::zoo {

Op gemm(double k, double n, double rows, bool bias, bool shares_input) {
  Op op;
  op.kind = OpKind::Gemm;
  const double weights = k * n;
  op.params = static_cast<std::uint64_t>(weights + (bias ? n : 0));
  op.flops = 2.0 * weights * rows;
  op.weight_elems = static_cast<double>(op.params);
  op.in_elems = k * rows;
  op.out_elems = n * rows;
  // dW needs the input; when a sibling GEMM (BERT's Q/K/V, Llama's gate/up) reads the same
  // tensor, autograd keeps one copy.
  op.saved_elems = shares_input ? 0 : op.in_elems;
  op.bwd_read_elems = op.in_elems;
  op.grad_elems = static_cast<double>(op.params);
  op.mat_rows = k;
  op.mat_cols = n;
  op.rows = rows;
  op.split = Kernel::Split::N;
  return op;
}

Op row_parallel(Op gemm_op) {
  gemm_op.split = Kernel::Split::K;
  return gemm_op;
}

ConvShape conv_out(int h, int w, int kernel, int stride, int pad) {
  return {(h + 2 * pad - kernel) / stride + 1, (w + 2 * pad - kernel) / stride + 1};
}

Op conv(int c_in, int c_out, int kernel, int stride, int pad, int h_in, int w_in, double batch, bool bias,
        bool shares_input) {
  const ConvShape out = conv_out(h_in, w_in, kernel, stride, pad);
  const double positions = batch * out.h * out.w;
  // Implicit GEMM: each output position multiplies a (c_in*k*k) patch by the c_out filters.
  Op op = gemm(static_cast<double>(c_in) * kernel * kernel, c_out, positions, bias);
  // The GEMM view would count every patch element once per position; the kernel reads the
  // input feature map about once (overlapping windows hit in cache).
  op.in_elems = batch * c_in * h_in * w_in;
  op.saved_elems = shares_input ? 0 : op.in_elems;
  op.bwd_read_elems = op.in_elems;
  op.convolution = true;
  return op;
}

Op attention(double keys, double q, double kv, double tokens, double heads, bool causal, bool flash) {
  Op op;
  op.kind = OpKind::Attention;
  op.rows = tokens;
  op.heads = heads;
  op.head_dim = q / heads;
  op.keys = keys;
  op.causal = causal;
  op.flash = flash;
  op.split = Kernel::Split::Heads;
  op.flops = 2.0 * 2.0 * keys * q * tokens;  // QK^T and AV, each 2*keys*q per query token
  op.in_elems = (q + 2 * kv) * tokens;       // q, k, v
  op.out_elems = q * tokens;
  // Flash backward reads q, k, v and the output (it recomputes the probabilities). The output
  // is also the input the output projection saves, so only q, k, v are kept on its account.
  op.saved_elems = (q + 2 * kv) * tokens;
  op.bwd_read_elems = (2 * q + 2 * kv) * tokens;
  return op;
}

Op expert_gemm(double k, double n, double rows, int experts, bool bias, bool shares_input) {
  Op op = gemm(k, n, rows, bias, shares_input);
  op.params *= static_cast<std::uint64_t>(experts);
  // Every expert that receives a token reads its weights and writes its weight gradient.
  op.weight_elems = static_cast<double>(op.params);
  op.grad_elems = static_cast<double>(op.params);
  op.mat_count = experts;
  op.rows = rows / experts;  // the routed rows, spread evenly over the experts
  return op;
}

Op norm(double elems, std::uint64_t params) {
  Op op;
  op.params = params;
  op.weight_elems = static_cast<double>(params);
  op.in_elems = elems;
  op.out_elems = elems;
  op.saved_elems = elems;
  op.bwd_read_elems = elems;
  op.grad_elems = static_cast<double>(params);
  op.tp_replicated = true;  // Megatron runs norms on the full hidden width of every token
  return op;
}

Op pointwise(double in, double out, double saved) {
  Op op;
  op.in_elems = in;
  op.out_elems = out;
  op.saved_elems = saved;
  op.bwd_read_elems = saved;
  return op;
}

Op relu_inplace(double elems) {
  Op op = pointwise(elems, elems, 0);
  op.bwd_read_elems = elems;
  return op;
}

Op add(double in, double out) {
  Op op = pointwise(in, out, 0);
  op.tp_replicated = true;  // residual sums follow the row-parallel all-reduce, on full width
  return op;
}

Op param_add(double in, double out, std::uint64_t params) {
  Op op = add(in, out);
  op.params = params;
  op.weight_elems = static_cast<double>(params);
  op.grad_elems = static_cast<double>(params);  // a reduction of the output gradient over the batch
  return op;
}

Op lookup(double table_rows, double d, double gathered) {
  Op op;
  op.params = static_cast<std::uint64_t>(table_rows * d);
  op.weight_elems = gathered * d;  // only the gathered rows are read
  op.out_elems = gathered * d;
  op.grad_elems = table_rows * d;  // dense gradient: zero-filled table plus index_add of rows
  op.input_grad = false;           // token ids are integers
  op.mat_rows = table_rows;
  op.mat_cols = d;
  return op;
}

Op cross_entropy(double rows, double classes) {
  // Saves the logits (softmax is recomputed from them with the saved log-sum-exp).
  return pointwise(rows * classes, rows, rows * classes);
}

std::vector<Op> classifier(int d, int classes, double batch) {
  return {gemm(d, classes, batch, /*bias=*/true), cross_entropy(batch, classes)};
}

namespace {

double input_grad_bytes(const Op& op, double act) {
  // dX reads the output gradient and writes the input gradient; a GEMM also reads its weights,
  // other ops the activations they need (a norm its input and affine weight, attention q, k, v
  // and its output, an activation function its input or output).
  const double act_read = op.kind == OpKind::Gemm ? 0 : op.bwd_read_elems;
  return (op.weight_elems + op.out_elems + op.in_elems + act_read) * act;
}

double weight_grad_bytes(const Op& op, double act, double grad) {
  // dW reads the forward input and the output gradient, and writes the weight gradient in the
  // gradient dtype.
  return (op.bwd_read_elems + op.out_elems) * act + op.grad_elems * grad;
}

void add_forward(Layer& l, const Op& op, double act) {
  l.fwd_flops += op.flops;
  l.fwd_bytes += (op.weight_elems + op.in_elems + op.out_elems) * act;
  l.fwd_kernels += 1;
}

void add_input_grad(Layer& l, const Op& op, double act) {
  if (!op.input_grad) return;
  // A GEMM's dX is one GEMM of the same size; flash attention's backward does twice the forward
  // matmul work (dQ, dK, dV, dP); memory-bound ops stay memory-bound.
  const double factor = op.kind == OpKind::Gemm ? 1.0 : op.kind == OpKind::Attention ? 2.0 : 0.0;
  l.bwd_input_flops += factor * op.flops;
  l.bwd_input_bytes += input_grad_bytes(op, act);
  l.bwd_input_kernels += 1;
}

void add_weight_grad(Layer& l, const Op& op, double act, double grad) {
  if (op.grad_elems <= 0) return;
  l.bwd_weight_flops += op.kind == OpKind::Gemm ? op.flops : 0.0;
  l.bwd_weight_bytes += weight_grad_bytes(op, act, grad);
  l.bwd_weight_kernels += 1;
}

Kernel gemm_kernel(double m, double n, double k, double count, Kernel::Split split, double bytes) {
  Kernel g;
  g.kind = Kernel::Kind::Gemm;
  g.m = m, g.n = n, g.k = k, g.count = count;
  g.split = split;
  g.bytes = bytes;
  return g;
}

Kernel memory_kernel(double bytes, Kernel::Split split) {
  Kernel k;
  k.bytes = bytes;
  k.split = split;
  return k;
}

// Attention as Megatron-LM ran it before fused kernels (Korthikanti et al. 2022): per sample and
// head, QK^T and AV as batched GEMMs around a fused scale-mask-softmax and a dropout that keep the
// s x keys probabilities (and the dropout's mask, a byte each) for backward, whose GEMMs are dP,
// dV, dQ and dK, with the dropout's and the softmax's backward between them.
void add_unfused_attention(PhaseKernels& pk, const Op& op, double act) {
  const double batched = op.samples * op.heads, s = op.rows / op.samples, keys = op.keys, hd = op.head_dim;
  const double probs = batched * s * keys;
  const auto H = Kernel::Split::Heads;
  pk.fwd.push_back(gemm_kernel(s, keys, hd, batched, H, 0));  // scores = Q K^T
  pk.fwd.push_back(memory_kernel(probs * 2 * act, H));        // scale, mask, softmax
  pk.fwd.push_back(memory_kernel(probs * (2 * act + 1), H));  // dropout, its mask kept
  pk.fwd.push_back(gemm_kernel(s, hd, keys, batched, H, 0));  // context = P V
  if (!op.input_grad) return;
  pk.bwd_input.push_back(gemm_kernel(s, keys, hd, batched, H, 0));  // dP = dO V^T
  pk.bwd_input.push_back(gemm_kernel(keys, hd, s, batched, H, 0));  // dV = P^T dO
  pk.bwd_input.push_back(memory_kernel(probs * (2 * act + 1), H));  // dropout's backward
  pk.bwd_input.push_back(memory_kernel(probs * 3 * act, H));        // softmax's backward
  pk.bwd_input.push_back(gemm_kernel(s, hd, keys, batched, H, 0));  // dQ = dS K
  pk.bwd_input.push_back(gemm_kernel(keys, hd, s, batched, H, 0));  // dK = dS^T Q
}

// The kernels of one op's three phases (docs/models.md#kernels): a GEMM's dX = dY W^T and
// dW = X^T dY, whose split follows from the forward's (column-parallel: dX's k, dW's n;
// row-parallel: dX's n, dW's m); attention's fused forward and backward; a memory-bound op one
// kernel a phase, moving the bytes its phase sums count.
void add_kernels(PhaseKernels& pk, const Op& op, double act, double grad) {
  const Kernel::Split mem = op.tp_replicated ? Kernel::Split::Replicated : Kernel::Split::Bytes;
  switch (op.kind) {
    case OpKind::Gemm: {
      const double m = op.rows, k = op.mat_rows, n = op.mat_cols, c = op.mat_count;
      const bool row = op.split == Kernel::Split::K;
      pk.fwd.push_back(gemm_kernel(m, n, k, c, op.split, (op.weight_elems + op.in_elems + op.out_elems) * act));
      if (op.input_grad)
        pk.bwd_input.push_back(
            gemm_kernel(m, k, n, c, row ? Kernel::Split::N : Kernel::Split::K, input_grad_bytes(op, act)));
      if (op.grad_elems > 0)
        pk.bwd_weight.push_back(
            gemm_kernel(k, n, m, c, row ? Kernel::Split::M : Kernel::Split::N, weight_grad_bytes(op, act, grad)));
      return;
    }
    case OpKind::Attention: {
      if (!op.flash) return add_unfused_attention(pk, op, act);
      Kernel a;
      a.kind = Kernel::Kind::Attention;
      a.split = Kernel::Split::Heads;
      a.m = op.rows, a.n = op.keys, a.k = op.head_dim, a.count = op.heads;
      a.causal = op.causal;
      a.bytes = (op.in_elems + op.out_elems) * act;
      pk.fwd.push_back(a);
      if (op.input_grad) {
        a.backward = true;
        a.bytes = input_grad_bytes(op, act);
        pk.bwd_input.push_back(a);
      }
      return;
    }
    case OpKind::Memory:
      pk.fwd.push_back(memory_kernel((op.weight_elems + op.in_elems + op.out_elems) * act, mem));
      if (op.input_grad) pk.bwd_input.push_back(memory_kernel(input_grad_bytes(op, act), mem));
      if (op.grad_elems > 0) pk.bwd_weight.push_back(memory_kernel(weight_grad_bytes(op, act, grad), mem));
      return;
  }
}

}  // namespace

Layer make_layer(std::string name, const std::vector<Op>& ops, const WorkloadShape& shape) {
  const double act = dtype_bytes(shape.dtype);
  const double grad = dtype_bytes(shape.grad_dtype);
  Layer l;
  l.name = std::move(name);
  l.fwd_kernels = l.bwd_input_kernels = l.bwd_weight_kernels = 0;
  Layer rep;  // the work of the ops tensor parallelism leaves whole
  double saved = 0;
  for (const Op& op : ops) {
    l.params += op.params;
    add_forward(l, op, act);
    add_input_grad(l, op, act);
    add_weight_grad(l, op, act, grad);
    add_kernels(l.kernels, op, act, grad);
    if (op.tp_replicated) {
      add_forward(rep, op, act);
      add_input_grad(rep, op, act);
      add_weight_grad(rep, op, act, grad);
    }
    saved += op.saved_elems;
    // A tied weight (the LM head's) is counted, and compressed, where it is owned.
    if (op.params > 0 && op.mat_rows > 0 && op.mat_cols > 0)
      for (int m = 0; m < op.mat_count; ++m)
        l.matrices.push_back({static_cast<std::uint64_t>(op.mat_rows), static_cast<std::uint64_t>(op.mat_cols)});
  }
  l.tp_replicated = {rep.fwd_flops, rep.bwd_input_flops, rep.bwd_weight_flops,
                     rep.fwd_bytes, rep.bwd_input_bytes, rep.bwd_weight_bytes};
  // A layer with a convolution is timed by the roofline, all of it (no shapes of its kernels).
  for (const Op& op : ops)
    if (op.convolution) l.kernels = {};
  l.activation_bytes = static_cast<std::uint64_t>(std::llround(saved * act));
  l.grad_bytes = l.params * dtype_bytes(shape.grad_dtype);
  return l;
}

void require(bool ok, const std::string& model, const std::string& message) {
  if (!ok) throw std::invalid_argument(model + ": " + message);
}

}  // namespace trainvp::zoo
