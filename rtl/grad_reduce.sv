// grad_reduce: gradient-aggregation engine (the compute of an in-CXL-device all-reduce).
//
// Contributors send lines of LANES elements (FP32, or BF16 in the low half of each 32-bit lane),
// each tagged {slot, line index, contributor id}, on one valid/ready stream in any order and
// interleaving. The engine keeps every contribution of a line in the accumulation buffer until
// the line has all NUM_CONTRIB contributions, then sums them in contributor order,
//     r = ((((-0 + c[0]) + c[1]) + c[2]) + ... ) + c[N-1]     (IEEE add, RNE, per lane)
// so the result is a function of the data only, never of the arrival order, and emits the
// reduced line on the output stream with its tags and its address base[slot] + idx * line bytes.
// Starting from -0 (the identity of IEEE addition) makes N = 1 and N > 1 follow one rule: a lone
// contribution comes out canonicalized (NaN -> 0x7FC00000, FTZ applied) like any sum.
//
// Micro-architecture (docs/rtl.md has the timing diagram and the CSR map):
//  - input: 2-entry FIFO, so in_ready is a register (no combinational path from the tags);
//  - tag table: DEPTH entries {valid, slot, idx, arrived mask}; the FIFO head is looked up
//    associatively; a new line takes the lowest free entry; no free entry = back-pressure;
//    malformed contributions (cid >= N, idx >= LEN[slot], slot >= SLOTS, a contributor already
//    present) are dropped, counted and flagged in ERROR, never stored;
//  - buffer: DEPTH x MAX_CONTRIBUTORS words of LANES x 32 bits, 1 write + 1 registered read port;
//  - a complete line's entry number enters a DEPTH-deep completion queue; the reducer reads its
//    contributions 0..N-1, one per cycle, and a row of LANES fp_add units accumulates them
//    (read stage, add stage); the entry is freed when its last word is read;
//  - output: one register stage; when it is held by back-pressure the reducer stalls.
// Throughput: one contribution in and one contribution reduced per cycle (so a line every N
// cycles), sustained. Latency: last contribution accepted -> out_valid is N + 3 cycles when idle.
module grad_reduce #(
  parameter int LANES            = 8,    // elements per line
  parameter int MAX_CONTRIBUTORS = 8,    // >= 2
  parameter int DEPTH            = 8,    // lines in flight (buffer entries), >= 2
  parameter int SLOTS            = 4,    // reduction slots (independent buffers/jobs), >= 2
  parameter int IDX_W            = 24,   // line index width
  parameter bit FTZ_RESET        = 1'b0, // reset value of CONFIG.FTZ (1: flush subnormals)
  parameter bit DTYPE_RESET      = 1'b0, // reset value of CONFIG.DTYPE (0: FP32, 1: BF16)
  localparam int DW     = 32 * LANES,
  localparam int CID_W  = (MAX_CONTRIBUTORS > 1) ? $clog2(MAX_CONTRIBUTORS) : 1,
  localparam int SLOT_W = (SLOTS > 1) ? $clog2(SLOTS) : 1
) (
  input  logic              clk,
  input  logic              rst_n,      // synchronous, active low
  // CSR port (APB3)
  input  logic              psel,
  input  logic              penable,
  input  logic              pwrite,
  input  logic [11:0]       paddr,
  input  logic [31:0]       pwdata,
  output logic [31:0]       prdata,
  output logic              pready,
  output logic              pslverr,
  output logic              irq,
  // contributions
  input  logic              in_valid,
  output logic              in_ready,
  input  logic [DW-1:0]     in_data,    // lane l = in_data[32*l +: 32]
  input  logic [SLOT_W-1:0] in_slot,
  input  logic [IDX_W-1:0]  in_idx,
  input  logic [CID_W-1:0]  in_cid,
  // reduced lines
  output logic              out_valid,
  input  logic              out_ready,
  output logic [DW-1:0]     out_data,
  output logic [SLOT_W-1:0] out_slot,
  output logic [IDX_W-1:0]  out_idx,
  output logic [63:0]       out_addr
);
  localparam int EW    = $clog2(DEPTH);
  localparam int WORDS = DEPTH * MAX_CONTRIBUTORS;
  localparam int AW    = $clog2(WORDS);
  localparam int IW    = DW + SLOT_W + IDX_W + CID_W;
  localparam int CNT_W = $clog2(DEPTH + 1);

  generate
    if (LANES < 1 || LANES > 255 || MAX_CONTRIBUTORS < 2 || MAX_CONTRIBUTORS > 255 || DEPTH < 2 ||
        DEPTH > 255 || SLOTS < 2 || SLOTS > 240 || IDX_W < 1 || IDX_W > 31)
      $error("grad_reduce: parameter out of range");
  endgenerate

  // ---------------------------------------------------------------- CSRs
  logic             running, bf16, ftz, flush;
  logic [7:0]       num_contrib;
  logic [IDX_W:0]   slot_len [SLOTS];
  logic [63:0]      slot_base [SLOTS];
  logic [CNT_W-1:0] entries_used;
  logic             buf_full, dp_idle;
  logic             ev_full, ev_drop;
  logic [3:0]       ev_drop_why;

  // ---------------------------------------------------------------- input FIFO
  logic          fifo_full, fifo_empty, pop;
  logic [IW-1:0] head;
  assign in_ready = running && !fifo_full;

  grad_reduce_fifo #(.W(IW), .DEPTH(2)) u_in_fifo (
    .clk, .rst_n, .clear(flush),
    .push(in_valid && in_ready), .din({in_data, in_slot, in_idx, in_cid}),
    .pop, .dout(head), .full(fifo_full), .empty(fifo_empty));

  logic [DW-1:0]     h_data;
  logic [SLOT_W-1:0] h_slot;
  logic [IDX_W-1:0]  h_idx;
  logic [CID_W-1:0]  h_cid;
  logic              h_valid;
  assign {h_data, h_slot, h_idx, h_cid} = head;
  assign h_valid = running && !fifo_empty;

  // ---------------------------------------------------------------- tag table
  logic                        e_valid [DEPTH];
  logic [SLOT_W-1:0]           e_slot  [DEPTH];
  logic [IDX_W-1:0]            e_idx   [DEPTH];
  logic [MAX_CONTRIBUTORS-1:0] e_mask  [DEPTH];

  logic          any_hit, any_free;
  logic [EW-1:0] hit_e, free_e;
  always_comb begin
    any_hit  = 1'b0;
    any_free = 1'b0;
    hit_e    = '0;
    free_e   = '0;
    for (int e = DEPTH - 1; e >= 0; e--) begin
      if (e_valid[e] && e_slot[e] == h_slot && e_idx[e] == h_idx) begin
        any_hit = 1'b1;
        hit_e   = EW'(e);
      end
      if (!e_valid[e]) begin
        any_free = 1'b1;
        free_e   = EW'(e);    // lowest free entry
      end
    end
  end

  logic [MAX_CONTRIBUTORS-1:0] need_mask, cid_bit, new_mask;
  logic slot_bad, cid_bad, idx_bad, dup, err, accept, complete;
  logic [EW-1:0] tgt_e;
  logic [SLOT_W-1:0] h_slot_safe;
  always_comb begin
    need_mask   = '0;
    for (int c = 0; c < MAX_CONTRIBUTORS; c++) need_mask[c] = (c < 32'(num_contrib));
    slot_bad    = 32'(h_slot) >= SLOTS;
    h_slot_safe = slot_bad ? '0 : h_slot;
    cid_bad     = 32'(h_cid) >= 32'(num_contrib);
    cid_bit     = cid_bad ? '0 : (MAX_CONTRIBUTORS'(1) << h_cid);
    idx_bad     = !slot_bad && ({1'b0, h_idx} >= slot_len[h_slot_safe]);
    dup         = !slot_bad && !cid_bad && !idx_bad && any_hit && ((e_mask[hit_e] & cid_bit) != '0);
    err         = slot_bad || cid_bad || idx_bad || dup;
    pop         = h_valid && (err || any_hit || any_free);
    accept      = pop && !err;
    tgt_e       = any_hit ? hit_e : free_e;
    new_mask    = (any_hit ? e_mask[hit_e] : '0) | cid_bit;
    complete    = (new_mask & need_mask) == need_mask;
  end
  assign ev_full     = h_valid && !err && !any_hit && !any_free;
  assign ev_drop     = pop && err;
  assign ev_drop_why = {slot_bad, idx_bad, dup, cid_bad};   // ERROR bits SLOT, IDX, DUP, CID

  // ---------------------------------------------------------------- buffer
  logic          rd_en;
  logic [AW-1:0] waddr, raddr;
  logic [DW-1:0] rd_data;
  assign waddr = AW'(32'(tgt_e) * MAX_CONTRIBUTORS + 32'(h_cid));

  grad_reduce_mem #(.WORDS(WORDS), .W(DW)) u_buf (
    .clk, .we(accept), .waddr, .wdata(h_data), .re(rd_en), .raddr, .rdata(rd_data));

  // ---------------------------------------------------------------- completion queue
  logic          cq_empty, cq_pop;
  logic [EW-1:0] cq_head;
  // Its `full` is left open on purpose: the queue cannot overflow, since at most DEPTH entries
  // are allocated and each enters the queue once, when it completes (lint waiver justified).
  /* verilator lint_off PINCONNECTEMPTY */
  grad_reduce_fifo #(.W(EW), .DEPTH(DEPTH)) u_cq (
    .clk, .rst_n, .clear(flush), .push(accept && complete), .din(tgt_e),
    .pop(cq_pop), .dout(cq_head), .full(), .empty(cq_empty));
  /* verilator lint_on PINCONNECTEMPTY */

  // ---------------------------------------------------------------- reducer: read stage
  logic              adv;          // the pipeline moves this cycle
  logic              r_busy;
  logic [EW-1:0]     r_e, cur_e;
  logic [CID_W-1:0]  r_k, cur_k;
  logic              issue, iss_last;
  assign cur_e    = r_busy ? r_e : cq_head;
  assign cur_k    = r_busy ? r_k : '0;
  assign issue    = adv && (r_busy || !cq_empty);
  assign iss_last = (32'(cur_k) + 1) == 32'(num_contrib);
  assign cq_pop   = issue && !r_busy;
  assign rd_en    = issue;
  assign raddr    = AW'(32'(cur_e) * MAX_CONTRIBUTORS + 32'(cur_k));

  always_ff @(posedge clk) begin
    if (!rst_n || flush) begin
      r_busy <= 1'b0;
      r_e    <= '0;
      r_k    <= '0;
    end else if (issue) begin
      r_busy <= !iss_last;
      r_e    <= cur_e;
      r_k    <= cur_k + 1'b1;
    end
  end

  // tag table update: allocate / mark arrival, free on the last read
  always_ff @(posedge clk) begin
    if (!rst_n || flush) begin
      for (int e = 0; e < DEPTH; e++) begin
        e_valid[e] <= 1'b0;
        e_slot[e]  <= '0;
        e_idx[e]   <= '0;
        e_mask[e]  <= '0;
      end
    end else begin
      if (accept) begin
        e_valid[tgt_e] <= 1'b1;
        e_slot[tgt_e]  <= h_slot;
        e_idx[tgt_e]   <= h_idx;
        e_mask[tgt_e]  <= new_mask;
      end
      if (issue && iss_last) e_valid[cur_e] <= 1'b0;
    end
  end

  // ---------------------------------------------------------------- reducer: add stage
  logic              s2_valid, s2_first, s2_last;
  logic [SLOT_W-1:0] s2_slot;
  logic [IDX_W-1:0]  s2_idx;
  assign adv = !(s2_valid && s2_last && out_valid && !out_ready);

  always_ff @(posedge clk) begin
    if (!rst_n || flush) begin
      s2_valid <= 1'b0;
      s2_first <= 1'b0;
      s2_last  <= 1'b0;
      s2_slot  <= '0;
      s2_idx   <= '0;
    end else if (adv) begin
      s2_valid <= issue;
      s2_first <= (cur_k == '0);
      s2_last  <= iss_last;
      s2_slot  <= e_slot[cur_e];
      s2_idx   <= e_idx[cur_e];
    end
  end

  logic [DW-1:0] acc, sum, result;
  for (genvar l = 0; l < LANES; l++) begin : g_lane
    logic [31:0] opa, opb;
    assign opa = s2_first ? 32'h8000_0000 : acc[32*l +: 32];
    assign opb = bf16 ? {rd_data[32*l +: 16], 16'h0000} : rd_data[32*l +: 32];
    fp_add u_add (.a(opa), .b(opb), .bf16, .ftz, .y(sum[32*l +: 32]));
    assign result[32*l +: 32] = bf16 ? {16'h0000, sum[32*l+16 +: 16]} : sum[32*l +: 32];
  end

  always_ff @(posedge clk) begin
    if (adv && s2_valid) acc <= sum;
  end

  // ---------------------------------------------------------------- output register
  logic [63:0] line_bytes;
  assign line_bytes = bf16 ? 64'(LANES * 2) : 64'(LANES * 4);

  always_ff @(posedge clk) begin
    if (!rst_n || flush) begin
      out_valid <= 1'b0;
    end else if (adv && s2_valid && s2_last) begin
      out_valid <= 1'b1;
    end else if (out_ready) begin
      out_valid <= 1'b0;
    end
  end

  always_ff @(posedge clk) begin
    if (adv && s2_valid && s2_last) begin
      out_data <= result;
      out_slot <= s2_slot;
      out_idx  <= s2_idx;
      out_addr <= slot_base[s2_slot] + 64'(s2_idx) * line_bytes;
    end
  end

  // ---------------------------------------------------------------- status
  always_comb begin
    entries_used = '0;
    for (int e = 0; e < DEPTH; e++) entries_used = entries_used + CNT_W'(e_valid[e]);
  end
  assign buf_full = !any_free;
  assign dp_idle  = fifo_empty && (entries_used == '0) && cq_empty && !r_busy && !s2_valid &&
                    !out_valid;

  grad_reduce_csr #(
    .LANES(LANES), .MAX_CONTRIBUTORS(MAX_CONTRIBUTORS), .DEPTH(DEPTH), .SLOTS(SLOTS),
    .IDX_W(IDX_W), .FTZ_RESET(FTZ_RESET), .DTYPE_RESET(DTYPE_RESET)
  ) u_csr (
    .clk, .rst_n, .psel, .penable, .pwrite, .paddr, .pwdata, .prdata, .pready, .pslverr,
    .running, .num_contrib, .bf16, .ftz, .slot_len, .slot_base, .flush, .irq,
    .entries_used, .buf_full, .dp_idle,
    .ev_in(in_valid && in_ready), .ev_in_stall(in_valid && !in_ready),
    .ev_out(out_valid && out_ready), .ev_out_slot(out_slot),
    .ev_out_stall(out_valid && !out_ready), .ev_full, .ev_drop, .ev_drop_why,
    .ev_drop_slot(h_slot), .ev_drop_cid(h_cid), .ev_drop_idx(h_idx));
endmodule
