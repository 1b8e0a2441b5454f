# headscope-cli export end to end, from Debian's python3 (numpy, xml.etree, csv; pdftoppm and
# pdftotext from poppler-utils when installed): every format, round trips, errors, no DISPLAY.
if(HEADSCOPE_TEST_PYTHON)
  add_test(NAME export_cli
           COMMAND ${HEADSCOPE_TEST_PYTHON} ${CMAKE_CURRENT_LIST_DIR}/export_cli.py $<TARGET_FILE:headscope-cli>)
  set_tests_properties(export_cli PROPERTIES LABELS "export;cli" TIMEOUT 300)
endif()
