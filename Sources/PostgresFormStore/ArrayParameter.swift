import PostgresNIO

/// A one-dimensional array bound as one parameter, in PostgreSQL's binary array format, so that a
/// whole group of rows goes in one statement (`unnest($1::text[], …)`). Unlike postgres-nio's own
/// arrays its elements may be NULL, and byte arrays are written straight from `[UInt8]`.
struct ArrayParameter<Element: ArrayParameterElement>: PostgresNonThrowingEncodable {
    var elements: [Element?]

    init(_ elements: [Element?]) {
        self.elements = elements
    }

    static var psqlType: PostgresDataType { Element.arrayType }
    static var psqlFormat: PostgresFormat { .binary }

    func encode<JSONEncoder: PostgresJSONEncoder>(into buffer: inout ByteBuffer, context: PostgresEncodingContext<JSONEncoder>) {
        buffer.writeInteger(elements.isEmpty ? 0 : 1, as: Int32.self)
        buffer.writeInteger(elements.contains { $0 == nil } ? 1 : 0, as: Int32.self)
        buffer.writeInteger(Element.elementType.rawValue)
        guard !elements.isEmpty else { return }
        buffer.writeInteger(Int32(elements.count))
        buffer.writeInteger(1, as: Int32.self)
        for element in elements {
            if let element {
                element.writeWithLength(into: &buffer)
            } else {
                buffer.writeInteger(-1, as: Int32.self)
            }
        }
    }
}

/// A value an ``ArrayParameter`` holds: its type and its bytes, preceded by their count.
protocol ArrayParameterElement {
    static var elementType: PostgresDataType { get }
    static var arrayType: PostgresDataType { get }
    func writeWithLength(into buffer: inout ByteBuffer)
}

extension String: ArrayParameterElement {
    static var elementType: PostgresDataType { .text }
    static var arrayType: PostgresDataType { .textArray }

    func writeWithLength(into buffer: inout ByteBuffer) {
        buffer.writeInteger(Int32(utf8.count))
        buffer.writeString(self)
    }
}

extension Array: ArrayParameterElement where Element == UInt8 {
    static var elementType: PostgresDataType { .bytea }
    static var arrayType: PostgresDataType { .byteaArray }

    func writeWithLength(into buffer: inout ByteBuffer) {
        buffer.writeInteger(Int32(count))
        buffer.writeBytes(self)
    }
}

extension Int64: ArrayParameterElement {
    static var elementType: PostgresDataType { .int8 }
    static var arrayType: PostgresDataType { .int8Array }

    func writeWithLength(into buffer: inout ByteBuffer) {
        buffer.writeInteger(Int32(8))
        buffer.writeInteger(self)
    }
}

extension Int32: ArrayParameterElement {
    static var elementType: PostgresDataType { .int4 }
    static var arrayType: PostgresDataType { .int4Array }

    func writeWithLength(into buffer: inout ByteBuffer) {
        buffer.writeInteger(Int32(4))
        buffer.writeInteger(self)
    }
}

extension Bool: ArrayParameterElement {
    static var elementType: PostgresDataType { .bool }
    static var arrayType: PostgresDataType { .boolArray }

    func writeWithLength(into buffer: inout ByteBuffer) {
        buffer.writeInteger(Int32(1))
        buffer.writeInteger(self ? 1 : 0, as: UInt8.self)
    }
}
