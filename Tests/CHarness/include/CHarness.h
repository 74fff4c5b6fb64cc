// Process spawning for the test harness, in C because Swift's Glibc module is
// built without _GNU_SOURCE: it lacks pipe2() and glibc's
// posix_spawn_file_actions_addclosefrom_np() and _addchdir_np().
#ifndef CHARNESS_H
#define CHARNESS_H

#include <sys/types.h>

/// A pipe whose two ends are close-on-exec, so that no other child started
/// meanwhile inherits them: 0, or -1 with errno.
int charness_pipe(int fds[2]);

/// Starts `file` (searched in PATH when it has no slash) with `argv` and
/// `envp` in a process group of its own, with `in`, `out` and `err` as its
/// descriptors 0, 1 and 2 and every other descriptor closed, in `directory`
/// when not NULL, with no signal blocked and every signal's action the
/// default. Returns the child's pid, or -1 with errno.
pid_t charness_spawn(const char *file, char *const argv[], char *const envp[], int in, int out, int err,
                     const char *directory);

/// 1 if child `pid` has exited and is waiting to be reaped, 0 if it is
/// running, -1 with errno. Does not reap it (waitid with WNOWAIT), so its pid
/// and process group id cannot be reused yet.
int charness_exited(pid_t pid);

#endif
