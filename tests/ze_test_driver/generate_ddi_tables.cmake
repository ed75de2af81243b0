# Writes ddi_tables.inc: one XSL_DDI_TABLE(function, table_type) line for
# every zeGet*/zetGet*/zesGet*ProcAddrTable declared in the Level Zero DDI
# headers, so the test driver exports exactly the set the loader requires.
# Inputs: HEADER_DIR (folder with level_zero/), OUTPUT.
set(_lines "")
foreach(_header ze_ddi.h zet_ddi.h zes_ddi.h)
  file(STRINGS "${HEADER_DIR}/level_zero/${_header}" _matches
       REGEX "^(ze|zet|zes)Get[A-Za-z]*ProcAddrTable\\($|^ +[a-z_]+_dditable_t\\* pDdiTable")
  set(_function "")
  foreach(_line IN LISTS _matches)
    if(_line MATCHES "^((ze|zet|zes)Get[A-Za-z]*ProcAddrTable)\\(")
      set(_function "${CMAKE_MATCH_1}")
    elseif(_function AND _line MATCHES "^ +([a-z_]+_dditable_t)\\* pDdiTable")
      string(APPEND _lines "XSL_DDI_TABLE(${_function}, ${CMAKE_MATCH_1})\n")
      set(_function "")
    endif()
  endforeach()
endforeach()
if(_lines STREQUAL "")
  message(FATAL_ERROR "no *ProcAddrTable declarations in ${HEADER_DIR}/level_zero")
endif()
file(WRITE "${OUTPUT}.tmp" "${_lines}")
file(COPY_FILE "${OUTPUT}.tmp" "${OUTPUT}" ONLY_IF_DIFFERENT)
