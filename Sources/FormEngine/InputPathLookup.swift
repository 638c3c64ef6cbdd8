extension JSONValue {
    /// The value stored at an input path of `FormDefinition.inputPaths` (`address.line1`,
    /// `addresses[].postcode`), nil when nothing is stored. Each `[]` gives an array with one entry
    /// per repeat item, in item order, `null` for an item without that input, so that the columns
    /// of one repeat line up item by item; a repeat inside a repeat gives an array per item.
    /// Made for CSV export, where a repeated input's values share one column.
    public func value(atInputPath path: String) -> JSONValue? {
        value(at: path.split(separator: ".")[...])
    }

    private func value(at segments: ArraySlice<Substring>) -> JSONValue? {
        guard let segment = segments.first else { return self }
        let repeats = segment.hasSuffix("[]")
        guard let child = self[String(repeats ? segment.dropLast(2) : segment)] else { return nil }
        guard repeats else { return child.value(at: segments.dropFirst()) }
        guard let items = child.arrayValue else { return nil }
        return .array(items.map { $0.value(at: segments.dropFirst()) ?? .null })
    }
}
