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
  return op;
}

ConvShape conv_out(int h, int w, int kernel, int stride, int pad) {
  return {(h + 2 * pad - kernel) / stride + 1, (w + 2 * pad - kernel) / stride + 1};
}

Op conv(int c_in, int c_out, int kernel, int stride, int pad, int h_in, int w_in, double batch,
        bool bias, bool shares_input) {
  const ConvShape out = conv_out(h_in, w_in, kernel, stride, pad);
  const double positions = batch * out.h * out.w;
  // Implicit GEMM: each output position multiplies a (c_in*k*k) patch by the c_out filters.
  Op op = gemm(static_cast<double>(c_in) * kernel * kernel, c_out, positions, bias);
  // The GEMM view would count every patch element once per position; the kernel reads the
  // input feature map about once (overlapping windows hit in cache).
  op.in_elems = batch * c_in * h_in * w_in;
  op.saved_elems = shares_input ? 0 : op.in_elems;
  op.bwd_read_elems = op.in_elems;
  return op;
}

Op attention(double keys, double q, double kv, double tokens) {
  Op op;
  op.kind = OpKind::Attention;
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
  l.activation_bytes = static_cast<std::uint64_t>(std::llround(saved * act));
  l.grad_bytes = l.params * dtype_bytes(shape.grad_dtype);
  return l;
}

void require(bool ok, const std::string& model, const std::string& message) {
  if (!ok) throw std::invalid_argument(model + ": " + message);
}

}  // namespace trainvp::zoo
