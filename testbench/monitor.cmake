# Line monitor, RX injector, scoreboard, serial formats and the serial terminal: part of the installed
# uartvp library.
# Included from testbench/CMakeLists.txt, where the uartvp target already exists.
target_sources(uartvp PRIVATE
  ${CMAKE_CURRENT_LIST_DIR}/src/serial_format.cpp
  ${CMAKE_CURRENT_LIST_DIR}/src/line_monitor.cpp
  ${CMAKE_CURRENT_LIST_DIR}/src/rx_injector.cpp
  ${CMAKE_CURRENT_LIST_DIR}/src/scoreboard.cpp
  ${CMAKE_CURRENT_LIST_DIR}/src/serial_terminal.cpp)
