/// A page of a paged list: its items, and the sealed cursor of the next page, `null` on the last.
struct PageJSON<Item: Encodable>: Encodable {
    var items: [Item]
    @NullWhenNil var nextCursor: String?
}
