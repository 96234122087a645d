/* Text for Discord: what players wrote (a roll's purpose, unit names, a title) must reach a
 * channel as the words they typed, never as markdown that Discord acts on. A purpose of
 * "[Claim prize](https://evil.example/x)" would otherwise arrive as a clickable masked link in
 * the referee's channel. */
#ifndef UMPIRE_DISCORD_TEXT_H
#define UMPIRE_DISCORD_TEXT_H

#include <stddef.h>

/* Writes in (NUL-terminated) to out with a backslash before every character Discord's markdown
 * gives a meaning to: \ * _ ~ ` | > < # - [ ] ( ) and the ':' of "://" (so no URL is
 * auto-linked). Discord shows each escaped character as itself. At most cap - 1 bytes and a NUL
 * are written, never cutting a character's escape from it. Returns the length written. */
size_t discord_escape(const char *in, char *out, size_t cap);

#endif
