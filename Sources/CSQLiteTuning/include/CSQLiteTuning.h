#ifndef CSQLITETUNING_H
#define CSQLITETUNING_H

/* SQLite settings that go through variadic functions Swift cannot call. The sqlite3_config ones are
   process-wide and must run before SQLite is initialized (the first open); afterwards they return
   SQLITE_MISUSE. */

/* Turns off SQLite's memory statistics: with them on, every allocation and free inside SQLite takes
   a global mutex to keep counts that Formhouse never reads. Returns the sqlite3_config result. */
int csqlite_disable_memory_statistics(void);

/* Keeps a connection (a sqlite3 *) from checkpointing the WAL into the database file when it is the
   last to close (sqlite3_db_config, variadic too). Returns the sqlite3_db_config result. */
int csqlite_no_checkpoint_on_close(void *connection);

#endif
