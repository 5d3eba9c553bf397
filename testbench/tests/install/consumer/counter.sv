// SPDX-License-Identifier: Apache-2.0
// The integrator's own RTL: an 8-bit counter.
module counter (
    input  logic       clk,
    input  logic       rst_n,
    output logic [7:0] count
);
    always_ff @(posedge clk) count <= !rst_n ? 8'd0 : count + 8'd1;
endmodule
