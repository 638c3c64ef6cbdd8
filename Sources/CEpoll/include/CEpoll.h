#ifndef CEPOLL_H
#define CEPOLL_H

// epoll, eventfd, accept4 and thread names are Linux APIs that the Glibc module map does not export.
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/socket.h>

/// accept4(2); wrapped because its declaration needs _GNU_SOURCE, which must not leak into Swift's view of libc.
int cepoll_accept4(int fd, struct sockaddr *address, socklen_t *length, int flags);

/// Names the calling thread (pthread_setname_np, also GNU-only), so loops show up in ps, perf and gdb.
int cepoll_name_thread(const char *name);

/// Bytes in a socket's send queue not yet acknowledged (ioctl SIOCOUTQ; ioctl is variadic, which Swift
/// cannot call), or -1. A shrinking queue shows a client reading even while ours does not move.
int cepoll_unsent_bytes(int fd);

/// Bytes received on a socket and not yet read (ioctl FIONREAD), or -1. Closing with any would send
/// a reset, which can destroy an answer still on its way to the client.
int cepoll_unread_bytes(int fd);

#endif
