/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * json_num.c: the number every JSON writer uses (json.c, llm.c, whatif.c,
 * calibrate.c): a finite value as a real, NaN or an infinity as null, so
 * neither reaches output. Below the writers, so none calls another for it.
 */
#include "render/out/json.h"

#include <jansson.h>
#include <math.h>

json_t *dam_json_num(double v)
{
    return isfinite(v) ? json_real(v) : json_null();
}
