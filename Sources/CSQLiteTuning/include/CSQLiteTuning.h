#ifndef CSQLITETUNING_H
#define CSQLITETUNING_H

/* Process-wide SQLite settings that go through sqlite3_config, a variadic function Swift cannot call.
   Each must run before SQLite is initialized (the first open); afterwards it returns SQLITE_MISUSE. */

/* Turns off SQLite's memory statistics: with them on, every allocation and free inside SQLite takes
   a global mutex to keep counts that Formhouse never reads. Returns the sqlite3_config result. */
int csqlite_disable_memory_statistics(void);

#endif
