/* SPDX-License-Identifier: GPL-3.0-or-later */
/* main.c: the damsim command (being built). */
#include <stdio.h>
int main(void)
{
    printf("damsim %s\n", DAM_VERSION);
    return 0;
}
