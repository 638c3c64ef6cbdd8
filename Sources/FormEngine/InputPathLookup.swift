extension JSONValue {
    /// The values stored at an input path of `FormDefinition.inputPaths` (`address.line1`,
    /// `addresses[].postcode`): one per repeat item, in item order; empty when nothing is stored.
    /// Made for CSV export, where a repeated input's values share one column.
    public func values(atInputPath path: String) -> [JSONValue] {
        var current: [JSONValue] = [self]
        for segment in path.split(separator: ".") {
            let repeats = segment.hasSuffix("[]")
            let key = String(repeats ? segment.dropLast(2) : segment)
            var next: [JSONValue] = []
            for value in current {
                guard let child = value[key] else { continue }
                if repeats {
                    next.append(contentsOf: child.arrayValue ?? [])
                } else {
                    next.append(child)
                }
            }
            current = next
        }
        return current
    }
}
