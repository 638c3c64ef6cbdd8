/// `GET /v1/admin/whoami`: the calling token's name, role and forms (null for every form).
struct WhoAmIJSON: Encodable {
    let name: String
    let role: String
    @NullWhenNil var forms: [String]?

    init(_ caller: AdminCaller) {
        name = caller.name
        role = caller.role.rawValue
        forms = caller.forms?.sorted()
    }
}
