import GRDB

/// A record read from the store's tables, where every date is integer milliseconds since 1970 (UTC),
/// as ``Foundation/Date/storedMilliseconds`` writes it.
///
/// Records whose columns are all SQLite values decode through `Decodable`, with `CodingKeys` naming
/// their columns. Records holding a blob as `[UInt8]` read their row in `init(row:)` instead: GRDB
/// decodes only `Data` from a blob, and would take a `[UInt8]` property for JSON.
protocol StoredRecord: FetchableRecord {}

extension StoredRecord {
    public static func databaseDateDecodingStrategy(for column: String) -> DatabaseDateDecodingStrategy {
        .millisecondsSince1970
    }
}
