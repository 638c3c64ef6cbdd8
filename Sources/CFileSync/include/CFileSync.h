#ifndef CFILESYNC_H
#define CFILESYNC_H

/// Starts writing back a file's dirty pages in [offset, offset + length) without waiting for them
/// (sync_file_range with SYNC_FILE_RANGE_WRITE; Linux only, and its declaration needs _GNU_SOURCE,
/// which must not leak into Swift's view of libc). A large file written this way as it arrives
/// leaves little for the fsync that ends it. Returns 0, or -1 with errno set; elsewhere it does
/// nothing and returns 0.
int cfilesync_start_writeback(int fd, long long offset, long long length);

#endif
