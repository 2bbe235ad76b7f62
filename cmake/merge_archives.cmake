# SPDX-License-Identifier: GPL-3.0-or-later
# Merge static archives into one (libdamsim.a): cmake -DAR=ar -DOUT=x.a
# -DLIBS="a.a|b.a" -P merge_archives.cmake. GNU ar's MRI script keeps every
# member, same-named ones included (solver/sweep.o and render/sweep.o).
string(REPLACE "|" ";" LIBS "${LIBS}")
set(script "create ${OUT}\n")
foreach(lib ${LIBS})
  string(APPEND script "addlib ${lib}\n")
endforeach()
string(APPEND script "save\nend\n")
file(WRITE ${OUT}.mri "${script}")
file(REMOVE ${OUT})
execute_process(COMMAND ${AR} -M INPUT_FILE ${OUT}.mri RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "ar -M failed (${rc})")
endif()
