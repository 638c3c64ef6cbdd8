import HTTPServer

extension Request {
    /// The query parameter `name`; 400 `invalid-parameter` when its value was sent with
    /// percent-encoding that does not decode, so a filter or a version cannot silently vanish, or
    /// when it is given twice (`limit=1&limit=500`), since only one of them could be honoured.
    func queryValue(_ name: String) throws -> String? {
        if query.isMalformed(name) {
            throw APIProblem(.invalidParameter, "'\(name)' has malformed percent-encoding.")
        }
        let values = query.values(name)
        if values.count > 1 {
            throw APIProblem(.invalidParameter, "'\(name)' is given \(values.count) times; give it once.")
        }
        return values.first
    }

    /// The opened `cursor` of a paged list, whose cursors are sealed for `scope` so that one list's
    /// cursor is refused by another; nil for the first page, 400 `invalid-cursor` for a cursor this
    /// server did not hand out for this list.
    func pageCursor(openedBy seal: CursorSeal, scope: String) throws -> String? {
        guard let raw = try queryValue("cursor") else { return nil }
        guard let inner = seal.open(raw, scope: scope) else { throw APIProblem.invalidCursor }
        return inner
    }

    /// `limit` of a paged list: `fallback` when absent, otherwise a whole number from 1 to 500.
    func pageLimit(default fallback: Int = 50) throws -> Int {
        guard let raw = try queryValue("limit") else { return fallback }
        guard let value = Int(raw), (1...500).contains(value) else {
            throw APIProblem(.invalidParameter, "'limit' must be a whole number from 1 to 500.")
        }
        return value
    }
}
