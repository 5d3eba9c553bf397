# Tests of the line monitor, RX injector, scoreboard, serial formats, serial terminal and boot-log workload.
# Included from testbench/tests/CMakeLists.txt (uartvp_add_gtest is defined there).
uartvp_add_gtest(test_serial_format ${CMAKE_CURRENT_LIST_DIR}/test_serial_format.cpp LIBS uartvp)
uartvp_add_gtest(test_line_monitor ${CMAKE_CURRENT_LIST_DIR}/test_line_monitor.cpp LIBS uartvp)
uartvp_add_gtest(test_rx_injector ${CMAKE_CURRENT_LIST_DIR}/test_rx_injector.cpp LIBS uartvp)
uartvp_add_gtest(test_scoreboard ${CMAKE_CURRENT_LIST_DIR}/test_scoreboard.cpp LIBS uartvp uartvp_sw)
uartvp_add_gtest(test_bootlog ${CMAKE_CURRENT_LIST_DIR}/test_bootlog.cpp LIBS uartvp_sw)
uartvp_add_gtest(test_serial_terminal ${CMAKE_CURRENT_LIST_DIR}/test_serial_terminal.cpp LIBS uartvp)
