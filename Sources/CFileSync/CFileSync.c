#define _GNU_SOURCE
#include <fcntl.h>
#include "CFileSync.h"

int cfilesync_start_writeback(int fd, long long offset, long long length) {
#ifdef SYNC_FILE_RANGE_WRITE
    return sync_file_range(fd, (off_t)offset, (off_t)length, SYNC_FILE_RANGE_WRITE);
#else
    (void)fd; (void)offset; (void)length;
    return 0;
#endif
}
