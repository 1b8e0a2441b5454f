# `cmake --install` and `cpack -G DEB`: the two programs, the shipped model, the lessons, a menu
# entry that opens GGUF files, folders and session files, an icon and man pages made from --help.
# Shaders, colormaps and example sentences are compiled into the programs; the installed programs
# find the model in ../share/headscope/models from their own folder (app/common/environment.h).
include(GNUInstallDirs)

if(TARGET headscope-cli)
  install(TARGETS headscope-cli RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
endif()
if(TARGET headscope)
  install(TARGETS headscope RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
  install(FILES ${PROJECT_SOURCE_DIR}/packaging/headscope.desktop DESTINATION ${CMAKE_INSTALL_DATADIR}/applications)
  install(FILES ${PROJECT_SOURCE_DIR}/packaging/headscope.svg
          DESTINATION ${CMAKE_INSTALL_DATADIR}/icons/hicolor/scalable/apps)
  install(FILES ${PROJECT_SOURCE_DIR}/packaging/headscope-mime.xml
          DESTINATION ${CMAKE_INSTALL_DATADIR}/mime/packages RENAME headscope.xml)
endif()
install(DIRECTORY ${PROJECT_SOURCE_DIR}/assets/models/ DESTINATION ${CMAKE_INSTALL_DATADIR}/headscope/models)
install(DIRECTORY ${PROJECT_SOURCE_DIR}/assets/lessons/ DESTINATION ${CMAKE_INSTALL_DATADIR}/headscope/lessons)
install(FILES ${PROJECT_SOURCE_DIR}/README.md DESTINATION ${CMAKE_INSTALL_DOCDIR})

# Man pages from --help (Debian's help2man); without it the install has none and says nothing.
find_program(HEADSCOPE_HELP2MAN help2man)
if(HEADSCOPE_HELP2MAN)
  set(man_pages "")
  set(headscope-cli_summary "attention maps, head roles and figures of transformer heads from a terminal")
  set(headscope_summary "see what each attention head of a transformer does")
  foreach(program headscope-cli headscope)
    if(NOT TARGET ${program})
      continue()
    endif()
    set(page ${PROJECT_BINARY_DIR}/man/${program}.1)
    add_custom_command(
      OUTPUT ${page}
      COMMAND ${CMAKE_COMMAND} -E make_directory ${PROJECT_BINARY_DIR}/man
      COMMAND ${HEADSCOPE_HELP2MAN} --no-info --section=1 "--name=${${program}_summary}"
              --output=${page} $<TARGET_FILE:${program}>
      DEPENDS ${program}
      COMMENT "Writing the man page of ${program} with help2man"
      VERBATIM)
    list(APPEND man_pages ${page})
  endforeach()
  add_custom_target(headscope_man_pages ALL DEPENDS ${man_pages})
  install(FILES ${man_pages} DESTINATION ${CMAKE_INSTALL_MANDIR}/man1)
endif()

set(CPACK_GENERATOR DEB)
set(CPACK_PACKAGE_NAME headscope)
set(CPACK_PACKAGE_VENDOR headscope)
set(CPACK_PACKAGE_CONTACT "headscope maintainers <headscope@invalid>")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "see what each attention head of a transformer does")
set(CPACK_PACKAGE_DESCRIPTION "headscope shows every attention head's map for a sentence you type, \
scores what each head does and exports figures; headscope-cli does the same from a terminal. \
It opens llama2.c, Hugging Face and GGUF checkpoints and ships a small trained model.")
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
set(CPACK_STRIP_FILES ON)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_SECTION science)
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)  # Depends from dpkg-shlibdeps, plus the fonts the app draws with
set(CPACK_DEBIAN_PACKAGE_DEPENDS "fonts-dejavu-core")
set(CPACK_DEBIAN_PACKAGE_RECOMMENDS "fonts-droid-fallback, fonts-symbola, xclip")
include(CPack)
