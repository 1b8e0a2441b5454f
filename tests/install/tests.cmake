# The Debian package: built with cpack, unpacked into a temporary root, both programs run from
# there. Not in the sanitizer tree (its binaries are not what is shipped).
if(HEADSCOPE_TEST_PYTHON AND TARGET headscope AND NOT HEADSCOPE_SANITIZE)
  find_program(HEADSCOPE_XVFB_RUN xvfb-run)
  find_program(HEADSCOPE_DPKG_DEB dpkg-deb)
  find_program(HEADSCOPE_DPKG_SHLIBDEPS dpkg-shlibdeps)
  if(HEADSCOPE_XVFB_RUN AND HEADSCOPE_DPKG_DEB AND HEADSCOPE_DPKG_SHLIBDEPS)
    add_test(NAME install_deb
             COMMAND ${HEADSCOPE_TEST_PYTHON} ${CMAKE_CURRENT_LIST_DIR}/install_deb.py ${PROJECT_BINARY_DIR} ${HEADSCOPE_XVFB_RUN})
    set_tests_properties(install_deb PROPERTIES LABELS "install" TIMEOUT 180)
  else()
    message(STATUS "install_deb not registered: it needs xvfb-run, dpkg-deb and dpkg-shlibdeps (dpkg-dev)")
  endif()
endif()
