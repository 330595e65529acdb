/* SPDX-License-Identifier: MIT */
/*
 * The terminal, the one module that speaks ncursesw: a full screen set up
 * and restored whatever the way out (q, Ctrl-C, SIGTERM, a closed
 * terminal: SIGHUP), redrawn on resize, UTF-8 names drawn by their width.
 */
#ifndef TALLY_CLI_TUI_H
#define TALLY_CLI_TUI_H

#include <stdbool.h>

/* Keys beyond the bytes a terminal sends. */
enum {
	TUI_KEY_NONE = -1,	/* the timeout passed */
	TUI_KEY_QUIT = -2,	/* Ctrl-C, SIGTERM, SIGHUP: leave now */
	TUI_KEY_RESIZE = -3,
	TUI_KEY_UP = 0x1000, TUI_KEY_DOWN, TUI_KEY_LEFT, TUI_KEY_RIGHT,
	TUI_KEY_PGUP, TUI_KEY_PGDN, TUI_KEY_HOME, TUI_KEY_END,
	TUI_KEY_ENTER, TUI_KEY_BACKSPACE, TUI_KEY_ESC, TUI_KEY_TAB, TUI_KEY_BTAB,
};

enum tui_attr { TUI_NORMAL, TUI_SELECTED, TUI_TITLE, TUI_HOT, TUI_WARM, TUI_DIM, TUI_FRAME0 };

/* Take the terminal (stdin and stdout). 0, or -1 after saying why. */
int tui_open(void);
/* Give it back as it was; safe twice and from atexit. */
void tui_close(void);
/* The signal that ended the session (SIGTERM, SIGHUP, SIGINT), else 0. */
int tui_signal(void);

int tui_rows(void);
int tui_cols(void);
/* A key, waiting up to timeout_ms (-1: forever). */
int tui_key(int timeout_ms);
void tui_clear(void);
/* s at (y, x), at most w columns wide (by wcwidth), the rest of w blank when fill. */
void tui_text(int y, int x, int w, enum tui_attr a, const char *s, bool fill);
/* A frame of lines h rows by w columns at (y, x), as perf's boxes; nothing if it does not fit. */
void tui_box(int y, int x, int h, int w, enum tui_attr a);
void tui_show(void);
/* A line of input on the last row after prompt: the text (malloc'd), NULL on ESC. */
char *tui_prompt(const char *prompt);

/* How many columns s takes (UTF-8, by wcwidth). */
int tui_width(const char *s);

#endif
