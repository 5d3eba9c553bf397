// SPDX-License-Identifier: Apache-2.0
// Synchronous FIFO used for the PL011 transmit and receive paths.
// `one_entry` turns it into the 1-entry holding register of character mode (LCR_H.FEN = 0)
// without discarding what it already holds.
module pl011_fifo #(
    parameter int DEPTH = 32,
    parameter int WIDTH = 8
) (
    input  logic                     clk,
    input  logic                     clear,      // synchronous: reset or flush
    input  logic                     one_entry,  // character mode
    input  logic                     push,
    input  logic [WIDTH-1:0]         push_data,
    input  logic                     pop,
    output logic [WIDTH-1:0]         head,
    output logic [$clog2(DEPTH):0]   level,
    output logic                     empty,
    output logic                     full
);
    localparam int AW = $clog2(DEPTH);

    logic [WIDTH-1:0] mem[DEPTH];
    logic [AW-1:0] rd_ptr, wr_ptr;

    assign empty = level == 0;
    // In character mode the holding register is full as soon as it holds anything.
    assign full = one_entry ? !empty : level == (AW + 1)'(DEPTH);
    assign head = mem[rd_ptr];

    wire do_push = push && !full;  // a write into a full FIFO is lost
    wire do_pop = pop && !empty;

    always_ff @(posedge clk) begin
        if (clear) begin
            rd_ptr <= '0;
            wr_ptr <= '0;
            level <= '0;
        end else begin
            if (do_push) begin
                mem[wr_ptr] <= push_data;
                wr_ptr <= wr_ptr + 1'b1;
            end
            if (do_pop) rd_ptr <= rd_ptr + 1'b1;
            case ({do_push, do_pop})
                2'b10: level <= level + 1'b1;
                2'b01: level <= level - 1'b1;
                default: ;
            endcase
        end
    end
endmodule
