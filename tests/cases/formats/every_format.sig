# Every format the generated validators check, one field each, and one they do not check
# (`template`: lint warns of it, unchecked-format).

## Read a record holding one value of every checked format.
@prompt("Read the record:\n{{text}}")
signature read_record(text :string) -> {
  stamp :datetime,
  date_time :string @format("date-time"),
  day :string @format("date"),
  clock :string @format("time"),
  period :string @format("duration"),
  email :string @format("email"),
  host :string @format("hostname"),
  address4 :string @format("ipv4"),
  address6 :string @format("ipv6"),
  uri :string @format("uri"),
  reference :string @format("uri-reference"),
  id :string @format("uuid"),
  pointer :string @format("json-pointer"),
  relative :string @format("relative-json-pointer"),
  template :string? @format("uri-template")
}
