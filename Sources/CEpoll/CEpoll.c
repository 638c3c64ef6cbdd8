#define _GNU_SOURCE
#include <pthread.h>
#include <linux/sockios.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include "CEpoll.h"

int cepoll_accept4(int fd, struct sockaddr *address, socklen_t *length, int flags) {
    return accept4(fd, address, length, flags);
}

int cepoll_name_thread(const char *name) {
    return pthread_setname_np(pthread_self(), name);
}

int cepoll_unsent_bytes(int fd) {
    int queued = 0;
    return ioctl(fd, SIOCOUTQ, &queued) == 0 ? queued : -1;
}

int cepoll_unread_bytes(int fd) {
    int unread = 0;
    return ioctl(fd, FIONREAD, &unread) == 0 ? unread : -1;
}
