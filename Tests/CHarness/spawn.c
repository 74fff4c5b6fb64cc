#include "CHarness.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

int charness_pipe(int fds[2]) { return pipe2(fds, O_CLOEXEC); }

pid_t charness_spawn(const char *file, char *const argv[], char *const envp[], int in, int out, int err,
                     const char *directory) {
    posix_spawn_file_actions_t actions;
    posix_spawnattr_t attributes;
    int r = posix_spawn_file_actions_init(&actions);
    if (r != 0) {
        errno = r;
        return -1;
    }
    r = posix_spawnattr_init(&attributes);
    if (r != 0) {
        posix_spawn_file_actions_destroy(&actions);
        errno = r;
        return -1;
    }
    // dup2 clears close-on-exec on the copy; the originals close with the rest.
    const int from[3] = {in, out, err};
    for (int fd = 0; fd < 3 && r == 0; fd++) {
        r = from[fd] == fd ? 0 : posix_spawn_file_actions_adddup2(&actions, from[fd], fd);
    }
    if (r == 0) r = posix_spawn_file_actions_addclosefrom_np(&actions, 3);
    if (r == 0 && directory) r = posix_spawn_file_actions_addchdir_np(&actions, directory);
    sigset_t none, all;
    sigemptyset(&none);
    sigfillset(&all);
    if (r == 0) r = posix_spawnattr_setsigmask(&attributes, &none);
    if (r == 0) r = posix_spawnattr_setsigdefault(&attributes, &all);
    if (r == 0) r = posix_spawnattr_setpgroup(&attributes, 0);
    if (r == 0) r = posix_spawnattr_setflags(&attributes, POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF);
    pid_t pid = -1;
    if (r == 0) r = posix_spawnp(&pid, file, &actions, &attributes, argv, envp);
    posix_spawnattr_destroy(&attributes);
    posix_spawn_file_actions_destroy(&actions);
    if (r != 0) {
        errno = r;
        return -1;
    }
    return pid;
}

int charness_exited(pid_t pid) {
    siginfo_t info;
    memset(&info, 0, sizeof info);
    if (waitid(P_PID, (id_t)pid, &info, WEXITED | WNOHANG | WNOWAIT) < 0) return -1;
    return info.si_pid == pid ? 1 : 0;
}
