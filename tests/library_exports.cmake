# libladder.so exports its public API and nothing else of ladder (hidden visibility, LADDER_API on the public
# declarations). Every function declared LADDER_API in include/ladder (the C ABI of ladder.h, the C++ API of
# ladder.hpp) is in `nm -D --defined-only`; nothing from ladder::detail, the harness, the steps or the device
# vocabulary is. Instantiations of std:: templates may be exported (libstdc++ declares them with default
# visibility) as long as they name nothing internal. -DLIBRARY -DNM -DINCLUDE_DIR

cmake_policy(SET CMP0007 NEW)  # empty list elements stay

# Declared in include/ladder, implemented on another branch: remove a name here when its definition lands.
set(PENDING)

execute_process(COMMAND ${NM} -D --defined-only -C ${LIBRARY} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "nm -D failed on ${LIBRARY}:\n${err}")
endif()
# One demangled symbol per line, without address and type letter.
string(REGEX REPLACE "(^|\n)[0-9a-fA-F]* *[A-Za-z] " "\\1" symbols "${out}")
string(REPLACE ";" "\\;" symbols "${symbols}")
string(REPLACE "\n" ";" symbols "${symbols}")
list(FILTER symbols EXCLUDE REGEX "^$")

# The declarations: `LADDER_API <type> name(` in both headers; C names start with ladder_.
file(READ ${INCLUDE_DIR}/ladder.h c_header)
file(READ ${INCLUDE_DIR}/ladder.hpp cpp_header)
string(REGEX MATCHALL "LADDER_API [^;(]*[ *](ladder_[a-z0-9_]+)\\(" c_decls "${c_header}")
string(REGEX MATCHALL "LADDER_API [^;(]*[ *&]([a-z_]+)\\(" cpp_decls "${cpp_header}")
set(c_functions)
foreach(d ${c_decls})
  string(REGEX REPLACE ".*[ *](ladder_[a-z0-9_]+)\\($" "\\1" name "${d}")
  list(APPEND c_functions ${name})
endforeach()
set(cpp_functions)  # one entry per declaration: overloads repeat the name
foreach(d ${cpp_decls})
  string(REGEX REPLACE ".*[ *&]([a-z_]+)\\($" "\\1" name "${d}")
  list(APPEND cpp_functions ${name})
endforeach()
if(NOT c_functions OR NOT cpp_functions)
  message(FATAL_ERROR "no LADDER_API declarations found in ${INCLUDE_DIR}")
endif()

set(failures)
# Required: every C function, and as many exported ladder::name overloads as there are declarations.
foreach(name ${c_functions})
  list(FIND symbols "${name}" at)
  list(FIND PENDING "${name}" pending)
  if(at EQUAL -1 AND pending EQUAL -1)
    list(APPEND failures "missing C function ${name}")
  elseif(NOT at EQUAL -1 AND NOT pending EQUAL -1)
    message(STATUS "${name} is now defined: remove it from PENDING in library_exports.cmake")
  endif()
endforeach()
list(REMOVE_DUPLICATES cpp_functions)
foreach(name ${cpp_functions})
  string(REGEX MATCHALL "LADDER_API [^;(]*[ *&]${name}\\(" decls "${cpp_header}")
  list(LENGTH decls declared)
  set(exported 0)
  foreach(s ${symbols})
    if(s MATCHES "^ladder::${name}(\\[abi:cxx11\\])?\\(")
      math(EXPR exported "${exported} + 1")
    endif()
  endforeach()
  list(FIND PENDING "${name}" pending)
  if(NOT pending EQUAL -1)
    math(EXPR declared "${declared} - 1")
  endif()
  if(exported LESS declared)
    list(APPEND failures "ladder::${name}: ${exported} of ${declared} declarations exported")
  endif()
endforeach()
foreach(s "typeinfo for ladder::Error" "vtable for ladder::Error")
  list(FIND symbols "${s}" at)
  if(at EQUAL -1)
    list(APPEND failures "missing ${s} (ladder::Error must be catchable across the library boundary)")
  endif()
endforeach()

# Allowed: the C functions, ladder::<declared name>, ladder::Error's type data, std:: instantiations.
string(REPLACE ";" "|" c_alt "${c_functions}")
string(REPLACE ";" "|" cpp_alt "${cpp_functions}")
foreach(s ${symbols})
  if(s MATCHES "ladder::(detail|harness)")
    list(APPEND failures "internal symbol exported: ${s}")
  elseif(s MATCHES "^(${c_alt})$" OR s MATCHES "^ladder::(${cpp_alt})(\\[abi:cxx11\\])?\\("
         OR s MATCHES "^((typeinfo|typeinfo name|vtable) for )?ladder::Error(::|$)" OR s MATCHES "^([A-Za-z_0-9:<> ]+ )?std::")
    continue()
  else()
    list(APPEND failures "exported but not public API: ${s}")
  endif()
endforeach()

list(LENGTH symbols count)
message(STATUS "${count} exported symbols; public C functions: ${c_functions}; C++: ${cpp_functions}")
if(failures)
  string(REPLACE ";" "\n  " text "${failures}")
  message(FATAL_ERROR "libladder.so exports are wrong:\n  ${text}")
endif()
