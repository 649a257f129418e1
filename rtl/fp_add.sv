// fp_add: combinational IEEE-754 binary32 adder with a bfloat16 mode.
//
// Operands and result are binary32 bit patterns. With bf16=1 they are bfloat16 values held in
// bits [31:16] (bits [15:0] of a and b are ignored, those of y are zero) and the sum is rounded
// once, to bfloat16 precision: an exact IEEE binary add on the bf16 format, not an fp32 add
// followed by a second rounding. Both formats share the 8-bit exponent, so the datapath is the
// binary32 one and only the rounding position moves (bit 3 of the aligned significand for fp32,
// bit 19 for bf16); a 3-bit guard/round/sticky tail is enough for both because every rounding
// boundary of the coarser format is also a multiple of the fp32 round-bit weight.
//
// Policy (the C++ model models/cxl/reduce_ref.cpp is bit-identical):
//  - round to nearest, ties to even; a result that rounds to 2^128 or more is +-infinity;
//  - any NaN operand, or inf + -inf, gives the canonical quiet NaN 0x7FC00000 (bf16: 0x7FC0);
//  - an exact zero sum is +0, except -0 + -0 = -0;
//  - ftz=1: subnormal operands are read as zero of the same sign and a subnormal result is
//    returned as zero of the result's sign (results of an addition that are subnormal are exact,
//    so "before" and "after rounding" tininess coincide); ftz=0: gradual underflow.
module fp_add (
  input  logic [31:0] a,
  input  logic [31:0] b,
  input  logic        bf16,
  input  logic        ftz,
  output logic [31:0] y
);
  localparam logic [31:0] QNAN = 32'h7FC0_0000;

  // ---- unpack (bf16: the low half does not exist)
  logic [31:0] ua, ub;
  assign ua = bf16 ? {a[31:16], 16'h0000} : a;
  assign ub = bf16 ? {b[31:16], 16'h0000} : b;

  logic        sa, sb;
  logic [7:0]  ea, eb;
  logic [22:0] ma, mb;
  assign {sa, ea, ma} = ua;
  assign {sb, eb, mb} = ub;

  logic a_nan, b_nan, a_inf, b_inf, a_zero, b_zero;
  assign a_nan  = (ea == 8'hFF) && (ma != 23'd0);
  assign b_nan  = (eb == 8'hFF) && (mb != 23'd0);
  assign a_inf  = (ea == 8'hFF) && (ma == 23'd0);
  assign b_inf  = (eb == 8'hFF) && (mb == 23'd0);
  assign a_zero = (ea == 8'd0) && ((ma == 23'd0) || ftz);
  assign b_zero = (eb == 8'd0) && ((mb == 23'd0) || ftz);

  // Significand with hidden bit; a subnormal (or zero) has effective exponent 1.
  logic [23:0] siga, sigb;
  logic [7:0]  xa, xb;
  assign siga = a_zero ? 24'd0 : {ea != 8'd0, ma};
  assign sigb = b_zero ? 24'd0 : {eb != 8'd0, mb};
  assign xa   = (ea == 8'd0) ? 8'd1 : ea;
  assign xb   = (eb == 8'd0) ? 8'd1 : eb;

  // ---- order by magnitude: l is the larger, s the smaller
  logic        swap;
  assign swap = {xb, sigb} > {xa, siga};
  logic        sl, ss;
  logic [7:0]  xl, xs;
  logic [23:0] sigl, sigs;
  assign sl   = swap ? sb : sa;
  assign ss   = swap ? sa : sb;
  assign xl   = swap ? xb : xa;
  assign xs   = swap ? xa : xb;
  assign sigl = swap ? sigb : siga;
  assign sigs = swap ? siga : sigb;

  // ---- align the smaller: 24-bit significand + guard, round, sticky
  logic [7:0]  d;
  logic [4:0]  dsh;
  logic [53:0] wide;
  logic [26:0] al;
  assign d    = xl - xs;
  assign dsh  = (d > 8'd27) ? 5'd27 : d[4:0];
  assign wide = {sigs, 3'b000, 27'd0} >> dsh;
  assign al   = {wide[53:28], wide[27] | (wide[26:0] != 27'd0)};

  // ---- add or subtract magnitudes (never negative: |l| >= |s|)
  logic        eff_sub;
  logic [27:0] sum;
  assign eff_sub = sl ^ ss;
  assign sum = eff_sub ? ({1'b0, sigl, 3'b000} - {1'b0, al}) : ({1'b0, sigl, 3'b000} + {1'b0, al});

  // ---- normalize
  function automatic logic [4:0] lzc27(input logic [26:0] v);
    lzc27 = 5'd27;
    for (int i = 0; i < 27; i++)
      if (v[i]) lzc27 = 5'(26 - i);
  endfunction

  logic [4:0]  lz, lsh;
  logic [7:0]  lmax;
  logic [26:0] nrm;
  logic [8:0]  en;        // biased exponent of nrm[26] (one more bit to see overflow)
  assign lz   = lzc27(sum[26:0]);
  assign lmax = xl - 8'd1;                 // cannot go below exponent 1 (subnormal)
  assign lsh  = ({3'b000, lz} > lmax) ? lmax[4:0] : lz;
  always_comb begin
    if (sum[27]) begin
      nrm = {sum[27:2], sum[1] | sum[0]};
      en  = {1'b0, xl} + 9'd1;
    end else begin
      nrm = sum[26:0] << lsh;
      en  = {1'b0, xl} - {4'b0000, lsh};
    end
  end

  // ---- round to nearest even at the format's LSB
  logic        lsb, grd, stk, rnd;
  logic [30:0] packed_t, inc, packed_r;
  always_comb begin
    if (bf16) begin
      lsb = nrm[19];
      grd = nrm[18];
      stk = nrm[17:0] != 18'd0;
      packed_t = {(nrm[26] ? en[7:0] : 8'd0), nrm[25:19], 16'h0000};
      inc = 31'h0001_0000;
    end else begin
      lsb = nrm[3];
      grd = nrm[2];
      stk = nrm[1] | nrm[0];
      packed_t = {(nrm[26] ? en[7:0] : 8'd0), nrm[25:3]};
      inc = 31'h0000_0001;
    end
    rnd = grd & (stk | lsb);
    // A mantissa carry moves into the exponent; 0x7F7FFFFF + 1 is infinity.
    packed_r = rnd ? packed_t + inc : packed_t;
  end

  // ---- result selection
  always_comb begin
    if (a_nan || b_nan || (a_inf && b_inf && (sa != sb))) begin
      y = QNAN;
    end else if (a_inf) begin
      y = {sa, 8'hFF, 23'd0};
    end else if (b_inf) begin
      y = {sb, 8'hFF, 23'd0};
    end else if (sum == 28'd0) begin
      y = {sa & sb, 31'd0};
    end else if (en >= 9'd255) begin
      y = {sl, 8'hFF, 23'd0};
    end else if (ftz && (packed_r[30:23] == 8'd0)) begin
      y = {sl, 31'd0};
    end else begin
      y = {sl, packed_r};
    end
  end
endmodule
