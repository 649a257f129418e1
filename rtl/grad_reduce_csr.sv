// grad_reduce_csr: control and status registers of grad_reduce, on an APB3 slave port.
// Register map, field meanings and reset values: docs/rtl.md ("CSR map"). All registers are
// 32 bits wide at word-aligned byte offsets; an unmapped or unaligned offset answers PSLVERR
// (reads return 0, writes do nothing). PREADY is always 1 (no wait states).
module grad_reduce_csr #(
  parameter int LANES            = 8,
  parameter int MAX_CONTRIBUTORS = 8,
  parameter int DEPTH            = 8,
  parameter int SLOTS            = 4,
  parameter int IDX_W            = 24,
  parameter bit FTZ_RESET        = 1'b0,
  parameter bit DTYPE_RESET      = 1'b0,
  localparam int SLOT_W = (SLOTS > 1) ? $clog2(SLOTS) : 1,
  localparam int CID_W  = (MAX_CONTRIBUTORS > 1) ? $clog2(MAX_CONTRIBUTORS) : 1,
  localparam int CNT_W  = $clog2(DEPTH + 1)
) (
  input  logic              clk,
  input  logic              rst_n,
  // APB3
  input  logic              psel,
  input  logic              penable,
  input  logic              pwrite,
  input  logic [11:0]       paddr,
  input  logic [31:0]       pwdata,
  output logic [31:0]       prdata,
  output logic              pready,
  output logic              pslverr,
  // configuration seen by the datapath
  output logic              running,
  output logic [7:0]        num_contrib,
  output logic              bf16,
  output logic              ftz,
  output logic [IDX_W:0]    slot_len [SLOTS],
  output logic [63:0]       slot_base [SLOTS],
  output logic              flush,       // empty the datapath (accepted START, or ABORT)
  output logic              irq,
  // status from the datapath
  input  logic [CNT_W-1:0]  entries_used,
  input  logic              buf_full,
  input  logic              dp_idle,
  // events from the datapath, one cycle each
  input  logic              ev_in,        // input handshake
  input  logic              ev_in_stall,  // in_valid && !in_ready
  input  logic              ev_out,       // output handshake
  input  logic [SLOT_W-1:0] ev_out_slot,
  input  logic              ev_out_stall, // out_valid && !out_ready
  input  logic              ev_full,      // a new line waits for a free buffer entry
  input  logic              ev_drop,      // a contribution was dropped
  input  logic [3:0]        ev_drop_why,  // ERROR bits [3:0] it raises
  input  logic [SLOT_W-1:0] ev_drop_slot,
  input  logic [CID_W-1:0]  ev_drop_cid,
  input  logic [IDX_W-1:0]  ev_drop_idx
);
  localparam logic [31:0] ID_VALUE = 32'h4752_4431;   // "GRD1"

  // Offsets
  localparam logic [11:0] A_ID = 12'h000, A_PARAMS = 12'h004, A_PARAMS2 = 12'h008,
                          A_CTRL = 12'h010, A_CONFIG = 12'h014, A_STATUS = 12'h018,
                          A_ERROR = 12'h01C, A_ERR_LINE = 12'h020, A_ERR_SRC = 12'h024,
                          A_IRQ_EN = 12'h028,
                          A_LINES_IN = 12'h040, A_LINES_OUT = 12'h044, A_IN_STALL = 12'h048,
                          A_OUT_STALL = 12'h04C, A_DROPPED = 12'h050, A_FULL_CYC = 12'h054,
                          A_ACTIVE_CYC = 12'h058, A_SLOT0 = 12'h100;

  // ---- state
  logic             done;
  logic [5:0]       error;
  logic [IDX_W-1:0] err_line;
  logic [21:0]      err_src;
  logic [1:0]       irq_en;
  logic [31:0]      c_in, c_out, c_in_stall, c_out_stall, c_drop, c_full, c_active;
  logic [IDX_W:0]   slot_out [SLOTS];

  // ---- decode
  logic wr, rd_or_wr;
  assign rd_or_wr = psel && penable;
  assign wr = rd_or_wr && pwrite;

  logic        in_slot_space;
  logic [7:0]  slot_sel_w;
  assign slot_sel_w    = paddr[11:4] - A_SLOT0[11:4];
  assign in_slot_space = (paddr >= A_SLOT0) && (32'(slot_sel_w) < SLOTS);
  logic [SLOT_W-1:0] slot_sel;
  assign slot_sel = in_slot_space ? slot_sel_w[SLOT_W-1:0] : '0;

  logic mapped;
  always_comb begin
    case (paddr)
      A_ID, A_PARAMS, A_PARAMS2, A_CTRL, A_CONFIG, A_STATUS, A_ERROR, A_ERR_LINE, A_ERR_SRC,
      A_IRQ_EN, A_LINES_IN, A_LINES_OUT, A_IN_STALL, A_OUT_STALL, A_DROPPED, A_FULL_CYC,
      A_ACTIVE_CYC: mapped = 1'b1;
      default:      mapped = in_slot_space && (paddr[1:0] == 2'b00);
    endcase
  end
  assign pready  = 1'b1;
  assign pslverr = rd_or_wr && !mapped;

  // ---- start / abort
  logic wr_ctrl, start_req, abort_req, start_ok, cfg_bad, any_len;
  assign wr_ctrl   = wr && (paddr == A_CTRL);
  assign start_req = wr_ctrl && pwdata[0];
  assign abort_req = wr_ctrl && pwdata[1];
  always_comb begin
    any_len = 1'b0;
    for (int s = 0; s < SLOTS; s++) any_len = any_len | (slot_len[s] != '0);
  end
  assign cfg_bad  = (num_contrib == 8'd0) || (32'(num_contrib) > MAX_CONTRIBUTORS) || !any_len;
  assign start_ok = start_req && !abort_req && !running && !cfg_bad;
  assign flush    = start_ok || abort_req;

  // A write to a configuration register (or START) while running is ignored and flagged.
  logic wr_cfg_space, busy_wr;
  assign wr_cfg_space = wr && ((paddr == A_CONFIG) ||
                               (in_slot_space && (paddr[3:2] != 2'b11) && (paddr[1:0] == 2'b00)));
  assign busy_wr = running && (wr_cfg_space || (start_req && !abort_req));

  logic all_done;
  always_comb begin
    all_done = 1'b1;
    for (int s = 0; s < SLOTS; s++) all_done = all_done & (slot_out[s] == slot_len[s]);
  end

  logic [5:0] err_set;
  assign err_set = {busy_wr, start_req && !abort_req && !running && cfg_bad,
                    ev_drop ? ev_drop_why : 4'b0000};

  // ---- registers
  always_ff @(posedge clk) begin
    if (!rst_n) begin
      running     <= 1'b0;
      done        <= 1'b0;
      num_contrib <= 8'(MAX_CONTRIBUTORS);
      bf16        <= DTYPE_RESET;
      ftz         <= FTZ_RESET;
      error       <= '0;
      err_line    <= '0;
      err_src     <= '0;
      irq_en      <= '0;
      for (int s = 0; s < SLOTS; s++) begin
        slot_len[s]  <= '0;
        slot_base[s] <= '0;
      end
    end else begin
      // configuration
      if (wr && !running) begin
        if (paddr == A_CONFIG) begin
          num_contrib <= pwdata[7:0];
          bf16        <= pwdata[8];
          ftz         <= pwdata[9];
        end
        if (in_slot_space) begin
          case (paddr[3:0])
            4'h0: slot_len[slot_sel] <= pwdata[IDX_W:0];
            4'h4: slot_base[slot_sel][31:0] <= pwdata;
            4'h8: slot_base[slot_sel][63:32] <= pwdata;
            default: ;
          endcase
        end
      end
      if (wr && (paddr == A_IRQ_EN)) irq_en <= pwdata[1:0];
      // run state
      if (abort_req) begin
        running <= 1'b0;
      end else if (start_ok) begin
        running <= 1'b1;
        done    <= 1'b0;
      end else if (running && all_done) begin
        running <= 1'b0;
        done    <= 1'b1;
      end
      if (wr_ctrl && pwdata[2]) done <= 1'b0;
      // errors: sticky, write 1 to clear; the first dropped contribution since ERROR was zero
      // is described in ERR_LINE / ERR_SRC
      if (wr && (paddr == A_ERROR)) error <= (error & ~pwdata[5:0]) | err_set;
      else                          error <= error | err_set;
      if (error == '0 && ev_drop) begin
        err_line <= ev_drop_idx;
        err_src  <= {2'b00, ev_drop_why, 8'(ev_drop_slot), 8'(ev_drop_cid)};
      end
    end
  end

  // Per-slot output counts and performance counters: cleared by an accepted START.
  always_ff @(posedge clk) begin
    if (!rst_n || start_ok) begin
      for (int s = 0; s < SLOTS; s++) slot_out[s] <= '0;
      c_in <= '0; c_out <= '0; c_in_stall <= '0; c_out_stall <= '0;
      c_drop <= '0; c_full <= '0; c_active <= '0;
    end else begin
      if (ev_out) slot_out[ev_out_slot] <= slot_out[ev_out_slot] + 1'b1;
      if (ev_in)        c_in        <= c_in + 1;
      if (ev_out)       c_out       <= c_out + 1;
      if (ev_in_stall)  c_in_stall  <= c_in_stall + 1;
      if (ev_out_stall) c_out_stall <= c_out_stall + 1;
      if (ev_drop)      c_drop      <= c_drop + 1;
      if (ev_full)      c_full      <= c_full + 1;
      if (running)      c_active    <= c_active + 1;
    end
  end

  assign irq = (irq_en[0] && done) || (irq_en[1] && (error != '0));

  // ---- read mux
  always_comb begin
    prdata = 32'd0;
    if (psel) begin
      case (paddr)
        A_ID:         prdata = ID_VALUE;
        A_PARAMS:     prdata = {8'(SLOTS), 8'(DEPTH), 8'(MAX_CONTRIBUTORS), 8'(LANES)};
        A_PARAMS2:    prdata = {8'd0, 8'd1, 6'd0, DTYPE_RESET, FTZ_RESET, 8'(IDX_W)};
        A_CTRL:       prdata = 32'd0;
        A_CONFIG:     prdata = {22'd0, ftz, bf16, num_contrib};
        A_STATUS:     prdata = {16'd0, 8'(entries_used), 4'd0, buf_full, dp_idle, done, running};
        A_ERROR:      prdata = {26'd0, error};
        A_ERR_LINE:   prdata = 32'(err_line);
        A_ERR_SRC:    prdata = {10'd0, err_src};
        A_IRQ_EN:     prdata = {30'd0, irq_en};
        A_LINES_IN:   prdata = c_in;
        A_LINES_OUT:  prdata = c_out;
        A_IN_STALL:   prdata = c_in_stall;
        A_OUT_STALL:  prdata = c_out_stall;
        A_DROPPED:    prdata = c_drop;
        A_FULL_CYC:   prdata = c_full;
        A_ACTIVE_CYC: prdata = c_active;
        default:
          if (in_slot_space && paddr[1:0] == 2'b00) begin
            case (paddr[3:2])
              2'd0: prdata = 32'(slot_len[slot_sel]);
              2'd1: prdata = slot_base[slot_sel][31:0];
              2'd2: prdata = slot_base[slot_sel][63:32];
              default: prdata = 32'(slot_out[slot_sel]);
            endcase
          end
      endcase
    end
  end
endmodule
