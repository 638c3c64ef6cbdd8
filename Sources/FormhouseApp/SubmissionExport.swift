import FormEngine
import FormStore
import HTTPServer

/// Streams every submission of a form as CSV or NDJSON, a batch at a time, so an export of any size
/// is never held in memory: a batch is at most 500 rows or about 1 MiB of values, and output goes
/// out in pieces of about 64 KiB, each waiting for a slow reader (see `StreamWriter`).
enum SubmissionExport {
    static let batchSize = 500
    static let maxBatchBytes = 1 << 20
    static let chunkBytes = 64 * 1024

    static func ndjson(store: any FormStore, formID: String, view: SubmissionValuesView) -> Response {
        var response = Response(status: 200, body: .stream { writer in
            try await write(store: store, formID: formID, to: writer) { record in
                JSONValueEncoder.serialize(SubmissionJSON(record, values: try view.values(of: record))) + [UInt8(ascii: "\n")]
            }
        })
        response.headers.set("Content-Type", "application/x-ndjson")
        response.headers.set("Content-Disposition", "attachment; filename=\"\(formID).ndjson\"")
        return response
    }

    /// The CSV's input columns, and per form version which of them are that version's inputs (its
    /// sensitive inputs not among them unless they are shown).
    struct Columns: Sendable {
        var paths: [String]
        var inputsOf: [Int: [Bool]]
    }

    /// One row per submission: its id, version and time, then one column per input key path.
    /// Inputs inside a repeating group hold a JSON array with one entry per repetition (`null` where
    /// that repetition has no value, so the repeat's columns line up), nested for nested repeats.
    static func csv(store: any FormStore, formID: String, columns: Columns, view: SubmissionValuesView) -> Response {
        var response = Response(status: 200, body: .stream { writer in
            try await writer.write(CSV.row(header(columns: columns.paths).map(CSV.neutralized)))
            try await write(store: store, formID: formID, to: writer) { record in
                let values = try view.values(of: record)
                // A row fills only its own version's inputs: where a path was an input in one
                // version and a group in another (`addr`, then `addr.city` or `addr[].city`), the
                // group's values have columns of their own and are not repeated as JSON in `addr`.
                let inputs = columns.inputsOf[record.formVersion]
                var cells = [record.id, String(record.formVersion), Timestamp.rfc3339(record.receivedAt)]
                for (i, column) in columns.paths.enumerated() {
                    if let inputs, !inputs[i] {
                        cells.append("")
                    } else {
                        cells.append(CSV.cell(values.value(atInputPath: column)))
                    }
                }
                return CSV.row(cells)
            }
        })
        response.headers.set("Content-Type", "text/csv; charset=utf-8")
        response.headers.set("Content-Disposition", "attachment; filename=\"\(formID).csv\"")
        return response
    }

    static let fixedColumns = ["id", "formVersion", "receivedAt"]

    /// The fixed columns, then the input paths. An input path spelled like a fixed column (an input
    /// named `id`) is headed `values.id`, so that a reader keyed by header never takes the user's text
    /// for the submission's id; `values.` is repeated while that, too, is taken.
    static func header(columns: [String]) -> [String] {
        var taken = Set(fixedColumns + columns)
        var header = fixedColumns
        for column in columns {
            var name = column
            if fixedColumns.contains(column) {
                repeat { name = "values." + name } while taken.contains(name)
                taken.insert(name)
            }
            header.append(name)
        }
        return header
    }

    /// Every submission of the form, oldest first, each encoded by `encode`, written to `writer` in
    /// pieces of about `chunkBytes`. Each batch is encoded off the event loop: a batch of a form
    /// with thousands of inputs can take most of a second, which every other connection of the loop
    /// would wait out.
    private static func write(
        store: any FormStore, formID: String, to writer: any BodyWriter,
        _ encode: @escaping @Sendable (SubmissionRecord) throws -> [UInt8]
    ) async throws {
        try await store.forEachSubmission(formID: formID, batchSize: batchSize, maxBatchBytes: maxBatchBytes) { batch in
            let pieces = try await Offload.run {
                var pieces: [[UInt8]] = []
                var chunk: [UInt8] = []
                for record in batch {
                    chunk += try encode(record)
                    if chunk.count >= chunkBytes {
                        pieces.append(chunk)
                        chunk.removeAll(keepingCapacity: true)
                    }
                }
                if !chunk.isEmpty { pieces.append(chunk) }
                return pieces
            }
            for piece in pieces { try await writer.write(piece) }
        }
    }
}
