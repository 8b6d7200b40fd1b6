/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The audit library's verdicts as a type: each recorded fixture under
 * tests/cli/audit-records/ checked through audit_check_record() gets the
 * status it stands for, whose name is what the JSON says; and the order in
 * which statuses make the exit status worse. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "audit.h"

static void expect(const char *file, audit_status want, int want_exit)
{
    const char *top = getenv("STENCILMAP_TOP_SRCDIR");
    char path[4096];
    snprintf(path, sizeof(path), "%s/tests/cli/audit-records/root/%s", top && *top ? top : "../..",
             file);
    audit_options opt = {.in_record_dir = true, .query_slurm = false, .launched = NULL};
    audit_record rec;
    audit_result r = audit_check_record(path, &opt, &rec);
    if (r.status != want)
        fail_msg("%s: %s, wanted %s", file, audit_status_name(r.status), audit_status_name(want));
    assert_string_equal(json_string_value(json_object_get(r.j, "status")), audit_status_name(want));
    assert_int_equal(audit_status_exit(r.status), want_exit);
    json_decref(r.j);
    audit_record_free(&rec);
}

static void test_fixtures(void **state)
{
    (void)state;
    expect("11.1.json", AUDIT_ST_OK, AUDIT_OK);
    expect("13.0.json", AUDIT_ST_FALLBACK, AUDIT_OK);
    expect("14.nostep-18867.json", AUDIT_ST_FAILED, AUDIT_FAILED);
    expect("15.nostep-18893.json", AUDIT_ST_NOT_LAUNCHED, AUDIT_OK);
    expect("18.nostep-20270.json", AUDIT_ST_NOT_LAUNCHED, AUDIT_OK);
    expect("no-such.json", AUDIT_ST_UNREADABLE, AUDIT_UNREADABLE);
}

static void test_not_placed(void **state)
{
    (void)state;
    audit_options opt = {.in_record_dir = true, .query_slurm = false, .launched = NULL};
    audit_result r = audit_not_placed(11, 2, "/nowhere", &opt);
    assert_int_equal(r.status, AUDIT_ST_NOT_PLACED);
    assert_string_equal(json_string_value(json_object_get(r.j, "status")), "not placed");
    assert_int_equal(audit_status_exit(r.status), AUDIT_MISSING);
    json_decref(r.j);
}

/* unreadable > inconsistent > failed > missing > ok; usage above all */
static void test_worse(void **state)
{
    (void)state;
    const int order[] = {AUDIT_OK, AUDIT_MISSING, AUDIT_FAILED, AUDIT_INCONSISTENT,
                         AUDIT_UNREADABLE, AUDIT_USAGE};
    for (int i = 0; i < 6; i++)
        for (int k = 0; k < 6; k++)
            assert_int_equal(audit_worse(order[i], order[k]), order[i > k ? i : k]);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_fixtures),
        cmocka_unit_test(test_not_placed),
        cmocka_unit_test(test_worse),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
