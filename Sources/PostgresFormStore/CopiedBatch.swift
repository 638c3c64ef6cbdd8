import GRDB
import PostgresNIO

/// Rows read from SQLite, held by column until they are inserted.
struct CopiedBatch: Sendable {
    var columns: [ColumnValues]
    var count = 0
    /// The values of the primary key of the last row, where the next batch starts.
    var lastKey: [DatabaseValue] = []
    /// The bytes of text and blobs read (integers and booleans count 8), which bound the batch.
    var bytes = 0
}

/// One column's values in a batch, as the array that is bound for it.
struct ColumnValues: Sendable {
    let kind: CopiedColumn.Kind
    private var texts: [String?] = []
    private var integers: [Int64?] = []
    private var blobs: [[UInt8]?] = []
    private var booleans: [Bool?] = []

    init(kind: CopiedColumn.Kind) {
        self.kind = kind
    }

    /// Adds a value and returns its size, or nil when SQLite holds a value of another type (or an
    /// integer too large for an `integer` column).
    mutating func append(_ value: DatabaseValue) -> Int? {
        switch (kind, value.storage) {
        case (.text, .null): texts.append(nil)
        case (.text, .string(let text)):
            texts.append(text)
            return text.utf8.count
        case (.bigint, .null), (.integer, .null): integers.append(nil)
        case (.bigint, .int64(let integer)): integers.append(integer)
        case (.integer, .int64(let integer)):
            guard Int32(exactly: integer) != nil else { return nil }
            integers.append(integer)
        case (.bytea, .null): blobs.append(nil)
        case (.bytea, .blob(let data)):
            blobs.append([UInt8](data))
            return data.count
        case (.boolean, .null): booleans.append(nil)
        case (.boolean, .int64(let integer)):
            guard integer == 0 || integer == 1 else { return nil }
            booleans.append(integer == 1)
        default: return nil
        }
        return 8
    }

    func bind(into bindings: inout PostgresBindings) {
        switch kind {
        case .text: bindings.append(ArrayParameter(texts))
        case .bigint: bindings.append(ArrayParameter(integers))
        case .integer: bindings.append(ArrayParameter(integers.map { $0.map { Int32($0) } }))
        case .bytea: bindings.append(ArrayParameter(blobs))
        case .boolean: bindings.append(ArrayParameter(booleans))
        }
    }
}
