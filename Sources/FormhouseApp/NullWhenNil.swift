/// An optional member that an answer writes as `null` when it has no value, where a synthesized
/// `Encodable` would leave it out: clients read these members as always present.
@propertyWrapper
struct NullWhenNil<Value: Encodable>: Encodable {
    var wrappedValue: Value?

    init(wrappedValue: Value?) {
        self.wrappedValue = wrappedValue
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        if let wrappedValue { try container.encode(wrappedValue) } else { try container.encodeNil() }
    }
}
