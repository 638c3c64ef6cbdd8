#ifndef CEPOLL_H
#define CEPOLL_H

// epoll, eventfd and accept4 are Linux APIs that the Glibc module map does not export.
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/socket.h>

/// accept4(2); wrapped because its declaration needs _GNU_SOURCE, which must not leak into Swift's view of libc.
int cepoll_accept4(int fd, struct sockaddr *address, socklen_t *length, int flags);

#endif
