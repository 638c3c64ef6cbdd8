/// How far ``SQLiteToPostgresCopy`` is in one table: reported after each batch, and once when the
/// table is done (an empty table is reported done at once).
public struct StoreCopyProgress: Sendable, Equatable {
    public var table: String
    public var copied: Int
    /// The rows the table held in SQLite when the copy began.
    public var total: Int
    public var finished: Bool
}

/// A table's rows, counted on both sides once the copy is done.
public struct CopiedTableCount: Sendable, Equatable {
    public var table: String
    public var rows: Int
}
