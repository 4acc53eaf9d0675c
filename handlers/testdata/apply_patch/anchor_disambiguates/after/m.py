class A:
    def run(self):
        pass

class B:
    def run(self):
        raise NotImplementedError()
