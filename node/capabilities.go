package node

// Capabilities lists the optional interfaces n implements, by name.
func Capabilities(n Node) []string {
	caps := []string{}
	add := func(ok bool, name string) {
		if ok {
			caps = append(caps, name)
		}
	}
	_, ok := As[Deriver](n)
	add(ok, "derivatives")
	_, ok = As[Outputter](n)
	add(ok, "outputs")
	_, ok = As[Tunable](n)
	add(ok, "tunable")
	_, ok = As[Eventer](n)
	add(ok, "events")
	_, ok = As[TimeEventer](n)
	add(ok, "time-events")
	_, ok = As[StepCompleter](n)
	add(ok, "completed-step")
	_, ok = As[InputJacobian](n)
	add(ok, "derivatives-jacobian")
	_, ok = As[OutputJacobian](n)
	add(ok, "outputs-jacobian")
	_, ok = As[ParamJacobian](n)
	add(ok, "param-jacobian")
	_, ok = As[EventJacobian](n)
	add(ok, "event-jacobian")
	_, ok = As[ResetJacobian](n)
	add(ok, "reset-jacobian")
	_, ok = As[Marker](n)
	add(ok, "marker")
	_, ok = As[Drawer](n)
	add(ok, "drawer")
	_, ok = As[HiddenState](n)
	add(ok, "hidden-state")
	return caps
}
