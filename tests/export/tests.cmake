# headscope-cli export end to end, from Debian's python3 (numpy, xml.etree, csv; pdftoppm and
# pdftotext from poppler-utils when installed): every format, round trips, errors, no DISPLAY.
if(HEADSCOPE_TEST_PYTHON)
  add_test(NAME export_cli
           COMMAND ${HEADSCOPE_TEST_PYTHON} ${CMAKE_CURRENT_LIST_DIR}/export_cli.py $<TARGET_FILE:headscope-cli>)
  set_tests_properties(export_cli PROPERTIES LABELS "export;cli" TIMEOUT 300)
endif()
# Head roles and attention rollout as figures and data, and --order cluster (issue 18).
if(HEADSCOPE_TEST_PYTHON)
  add_test(NAME export_roles_cli
           COMMAND ${HEADSCOPE_TEST_PYTHON} ${CMAKE_CURRENT_LIST_DIR}/roles_export_cli.py $<TARGET_FILE:headscope-cli> ${HEADSCOPE_MODELS_DIR})
  set_tests_properties(export_roles_cli PROPERTIES LABELS "export;cli" TIMEOUT 300)
endif()
# Issue 20: difference table and sweep reflowed for a page, the style's font (pdfinfo, pdffonts).
if(HEADSCOPE_TEST_PYTHON)
  add_test(NAME export_reflow_pdf_cli
           COMMAND ${HEADSCOPE_TEST_PYTHON} ${CMAKE_CURRENT_LIST_DIR}/reflow_pdf_cli.py $<TARGET_FILE:headscope-cli>)
  set_tests_properties(export_reflow_pdf_cli PROPERTIES LABELS "export;cli" TIMEOUT 120)
endif()
# Issue 36: every app view name is an export view (old names kept), --layer the same in every data
# format, the tidy CSV one table.
if(HEADSCOPE_TEST_PYTHON)
  add_test(NAME export_views_cli
           COMMAND ${HEADSCOPE_TEST_PYTHON} ${CMAKE_CURRENT_LIST_DIR}/views_cli.py $<TARGET_FILE:headscope-cli> ${HEADSCOPE_MODELS_DIR})
  set_tests_properties(export_views_cli PROPERTIES LABELS "export;cli" TIMEOUT 600)
endif()
# Issue 35: every figure view at a paper column (3.25 x 3.25 in, 3.25 x 2.2 in) and 6.75 x 4 in, word
# by word from pdftotext -bbox: on the page, no overlaps, nothing under 6 pt.
if(HEADSCOPE_TEST_PYTHON)
  add_test(NAME export_pdf_word_boxes
           COMMAND ${HEADSCOPE_TEST_PYTHON} ${CMAKE_CURRENT_LIST_DIR}/pdf_word_boxes.py $<TARGET_FILE:headscope-cli> ${HEADSCOPE_MODELS_DIR})
  set_tests_properties(export_pdf_word_boxes PROPERTIES LABELS "export;cli" TIMEOUT 120)
endif()
# Figures for papers: the head-distance figure (colour range from the off-diagonal cells, the dendrogram
# in cluster order); grids of grouped-query models frame each head in its key/value head's colour.
if(HEADSCOPE_TEST_PYTHON)
  add_test(NAME export_paper_figures
           COMMAND ${HEADSCOPE_TEST_PYTHON} ${CMAKE_CURRENT_LIST_DIR}/paper_figures_cli.py $<TARGET_FILE:headscope-cli> ${HEADSCOPE_MODELS_DIR})
  set_tests_properties(export_paper_figures PROPERTIES LABELS "export;cli" TIMEOUT 120)
endif()
# Issue 45: reachable keys in maps --json and the report, export --view width with a pattern fit,
# and the fit's bad input refused with the reason.
if(HEADSCOPE_TEST_PYTHON)
  add_test(NAME export_width_cli
           COMMAND ${HEADSCOPE_TEST_PYTHON} ${CMAKE_CURRENT_LIST_DIR}/width_cli.py $<TARGET_FILE:headscope-cli>)
  set_tests_properties(export_width_cli PROPERTIES LABELS "export;cli" TIMEOUT 300)
endif()
# export --what scores|q|k|v for every family's test model (synthetic, --weights, teaching, stories260K,
# GPT-2, the Hugging Face decoder families and their GGUF files, BERT, ModernBERT): softmax of the
# masked scores is the map (1e-5), the scores are the family's scaled q . k, stories260K's q, k, v
# equal the PyTorch reference's. Models are written into the build tree.
if(HEADSCOPE_TEST_PYTHON AND TARGET headscope-cli)
  add_test(NAME export.vectors_vs_maps
           COMMAND ${HEADSCOPE_TEST_PYTHON} ${CMAKE_CURRENT_LIST_DIR}/vectors_reference.py
                   $<TARGET_FILE:headscope-cli> ${CMAKE_CURRENT_BINARY_DIR}/vectors-reference ${HEADSCOPE_MODELS_DIR})
  set_tests_properties(export.vectors_vs_maps PROPERTIES LABELS "export;oracle" SKIP_RETURN_CODE 77 TIMEOUT 600)
endif()
# Issue 53: the interactive HTML page of every view in Debian's chromium through puppeteer-core
# (installed from npm into the build tree on first run): no console errors, no requests, hover
# values equal the .npy, colours equal the PNG export, clicks and keys; provenance in every format.
if(HEADSCOPE_TEST_PYTHON)
  add_test(NAME export_html_page_browser
           COMMAND ${HEADSCOPE_TEST_PYTHON} ${CMAKE_CURRENT_LIST_DIR}/html_page_browser.py $<TARGET_FILE:headscope-cli>
                   ${HEADSCOPE_MODELS_DIR} ${CMAKE_BINARY_DIR})
  set_tests_properties(export_html_page_browser PROPERTIES LABELS "export;cli;browser" SKIP_RETURN_CODE 77 TIMEOUT 900)
endif()
