#include <sqlite3.h>
#include "CSQLiteTuning.h"

int csqlite_disable_memory_statistics(void) {
    return sqlite3_config(SQLITE_CONFIG_MEMSTATUS, 0);
}

int csqlite_no_checkpoint_on_close(void *connection) {
    return sqlite3_db_config((sqlite3 *)connection, SQLITE_DBCONFIG_NO_CKPT_ON_CLOSE, 1, (int *)0);
}
