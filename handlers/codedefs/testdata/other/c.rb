module Shop
  class Cart
    attr_reader :items

    def initialize
      @items = []
    end

    def self.empty
      new
    end
  end
end
