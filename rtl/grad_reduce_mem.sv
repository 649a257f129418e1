// grad_reduce_mem: the accumulation buffer, a simple dual-port (one write, one read) memory
// with a registered read port: the shape of an SRAM macro, which may replace this model.
// Reading and writing the same word in one cycle does not occur in grad_reduce (a word is only
// read once its line is complete, and a complete line takes no more writes).
module grad_reduce_mem #(
  parameter int WORDS = 64,
  parameter int W     = 256,
  localparam int AW   = $clog2(WORDS)
) (
  input  logic          clk,
  input  logic          we,
  input  logic [AW-1:0] waddr,
  input  logic [W-1:0]  wdata,
  input  logic          re,
  input  logic [AW-1:0] raddr,
  output logic [W-1:0]  rdata
);
  logic [W-1:0] mem [WORDS];

  always_ff @(posedge clk) begin
    if (we) mem[waddr] <= wdata;
    if (re) rdata <= mem[raddr];
  end
endmodule
