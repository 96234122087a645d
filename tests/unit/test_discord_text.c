/* server/discord_text: what players wrote reaches Discord as typed, never as markdown. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "server/live/discord_text.h"

#include <string.h>

static void escape_ok(const char *in, const char *want) {
    char out[512];
    size_t n = discord_escape(in, out, sizeof out);
    assert_string_equal(out, want);
    assert_int_equal(n, strlen(want));
}

static void test_masked_link_is_plain_text(void **state) {
    (void)state;
    /* the case: a side's purpose that would be a clickable masked link */
    escape_ok("[Claim prize](https://evil.example/x)",
              "\\[Claim prize\\]\\(https\\://evil.example/x\\)");
}

static void test_every_markdown_character(void **state) {
    (void)state;
    escape_ok(
        "**bold** __u__ ~~s~~ `c` ||spoiler|| > q # h - l <@1> \\",
        "\\*\\*bold\\*\\* \\_\\_u\\_\\_ \\~\\~s\\~\\~ \\`c\\` \\|\\|spoiler\\|\\| \\> q \\# h "
        "\\- l \\<@1\\> \\\\");
    /* a summary as the server writes it: only the markdown characters change */
    escape_ok("knight rolled 2d6+1 = 8 (2d6: [3,4] = 7; +1)",
              "knight rolled 2d6+1 = 8 \\(2d6: \\[3,4\\] = 7; +1\\)");
    escape_ok("Café ⚔ 12:30", "Café ⚔ 12:30"); /* a colon not before "//" stays */
}

static void test_never_cuts_an_escape(void **state) {
    (void)state;
    char out[6];
    assert_int_equal(discord_escape("ab**", out, sizeof out), 4);
    assert_string_equal(out, "ab\\*"); /* "\\*\\*" does not fit: the second escape is left out */
    assert_int_equal(discord_escape("x", out, 0), 0);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_masked_link_is_plain_text),
        cmocka_unit_test(test_every_markdown_character),
        cmocka_unit_test(test_never_cuts_an_escape),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
