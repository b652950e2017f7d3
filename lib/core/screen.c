/*
 * Taking over the terminal for a full-screen view (perfkit top, perfkit
 * gpu): newterm() rather than initscr(), so that a terminal ncurses cannot
 * drive is an error returned to the caller instead of an exit; keys
 * unbuffered and not echoed, no cursor, and colour pairs on the terminal's
 * own background when it has colours.
 */
#include <errno.h>
#include <stdio.h>
#include <unistd.h>
#include <ncurses.h>
#include <perfkit/core.h>

PK_API int pk_screen_open(struct screen **out, const short *fg, int n_pairs, int *color)
{
	SCREEN *scr;

	*out = NULL;
	*color = 0;
	if (!isatty(STDIN_FILENO) || !isatty(STDOUT_FILENO))
		return -ENOTTY;
	scr = newterm(NULL, stdout, stdin);
	if (!scr)
		return -ENOTTY;
	cbreak();
	noecho();
	curs_set(0);
	keypad(stdscr, TRUE);
	if (has_colors() && start_color() == OK) {
		use_default_colors();
		for (int i = 0; i < n_pairs; i++)
			init_pair((short)(i + 1), fg[i], -1);
		*color = 1;
	}
	*out = scr;
	return 0;
}

PK_API void pk_screen_close(struct screen *scr)
{
	if (!scr)
		return;
	endwin();
	delscreen(scr);
}
